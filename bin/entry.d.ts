/** Types of entry.js, for the TypeScript that asks whether the build is fresh (the tests' setup). */
export declare const BUILD_INFO: string;
export type BuildState = { fresh: true } | { fresh: false; reason: string };
export declare function buildState(root?: string): BuildState;
export declare function loadEntry(name: string): Promise<unknown>;
