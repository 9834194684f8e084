/**
 * Loaded once for all the workflows of a worker (`preloadModules` in workflow-bundle.ts), not once
 * per workflow: zod, whose module builds its schema classes when it loads.
 */
import { z } from 'zod';

// The SDK deep-freezes what preloading made. zod sets its global configuration (its default
// locale and memoizer) when the first schema is built: here, before the freeze. This call is also
// what keeps the module in the bundle (zod declares itself free of side effects).
z.object({ preloaded: z.string() }).safeParse({ preloaded: '' });
