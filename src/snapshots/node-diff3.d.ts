/**
 * The part of node-diff3 that merge-snapshots.ts uses. The package declares its types through
 * `exports`, which this project's `moduleResolution: node` does not read; at run time `require`
 * gets its CommonJS build.
 */
declare module 'node-diff3' {
  export interface MergeRegion<T> {
    ok?: T[];
    conflict?: { a: T[]; aIndex: number; b: T[]; bIndex: number; o: T[]; oIndex: number };
  }

  /** Regions of `a` (ours) and `b` (theirs) against `o` (base): clean, or a conflict. */
  export function diff3Merge<T = string>(
    a: T[],
    o: T[],
    b: T[],
    options?: { excludeFalseConflicts?: boolean },
  ): MergeRegion<T>[];
}
