/** Resolves `all` once `arrived` was called `count` times: a scripted model holds calls until all of them came. */
export function barrier(count: number): { arrived: () => void; all: Promise<void> } {
  let seen = 0;
  let open!: () => void;
  const all = new Promise<void>((resolve) => (open = resolve));
  return { arrived: () => ++seen === count && open(), all };
}
