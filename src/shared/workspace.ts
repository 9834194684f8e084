/**
 * The durable workspace as workflows, activities and clients see it: snapshots by reference,
 * the changes between two of them, and the inputs and outputs of the workspace activities.
 * Plain JSON only: what the workflow holds of a snapshot is its reference, never its manifest.
 */

/** How a file differs between two snapshots (or between a snapshot and the working tree). */
export type FileChangeKind = 'added' | 'modified' | 'deleted';

export interface FileChange {
  /** Relative to the workdir, with `/` separators. */
  path: string;
  change: FileChangeKind;
}

/** A file change with its line counts, for a diffstat (binary and big files count no lines). */
export interface FileChangeStat extends FileChange {
  linesAdded: number;
  linesRemoved: number;
  binary?: true;
}

/** One snapshot the session took: the `state` query lists them. Turn 0 is the session's start. */
export interface SnapshotRecord {
  turn: number;
  /** `sha256:<hex>` of the snapshot's root tree in the content store. */
  ref: string;
  /** Files added, modified or deleted since the snapshot before it. */
  filesChanged: number;
}

/** A snapshot just taken: its reference, and the files changed since the one before. */
export interface TakenSnapshot {
  ref: string;
  filesChanged: number;
}

export interface SnapshotWorkspaceInput {
  workdir: string;
  /** The snapshot before this one: files whose size, mtime and inode it recorded are not read again. */
  previousRef?: string;
  /**
   * A session's start snapshot: `<workflow id>/<first run id>`. The first snapshot taken under it is
   * kept, and a run that asks again (after `temporal workflow reset` to the first workflow task)
   * gets that one back rather than a snapshot of files the session has changed since.
   */
  startKey?: string;
}

export interface SnapshotWorkspaceOutput {
  ref: string;
  /** Files in the snapshot. */
  files: number;
  /** Files added, modified or deleted since `previousRef` (0 without one). */
  filesChanged: number;
  /**
   * The workflow run the files were snapshotted under (a start snapshot kept under `startKey`: the
   * run that took it). Absent in results recorded before runs were noted. See reset.ts.
   */
  runId?: string;
}

export interface RestoreWorkspaceInput {
  workdir: string;
  /** The snapshot the files go back to. */
  targetRef: string;
  /** The session's last snapshot: anything else found in the working tree was changed by someone else. */
  expectedRef: string;
  /** Overwrite changes the session did not make (they are kept in the store, under `currentRef`). */
  force: boolean;
}

export type RestoreWorkspaceOutput =
  | { kind: 'refused'; outsideChanges: FileChange[] }
  | {
      kind: 'restored';
      /** The working tree as found before restoring (outside changes included), so nothing is lost. */
      currentRef: string;
      /** Files written, deleted or re-linked. */
      filesChanged: number;
      /** Files over the size limit whose content the snapshot does not hold: left as they are. */
      notRestored: string[];
      /** The workflow run the files were put back under (absent in results recorded before runs were noted). */
      runId?: string;
    };

export interface MaterializeSnapshotInput {
  /** An empty (or missing) directory, or one a crashed materialization of the same snapshot left. */
  workdir: string;
  ref: string;
}

export interface MaterializeSnapshotOutput {
  files: number;
  notRestored: string[];
  /** The host that wrote the files (the fork's session is prepared there). */
  host?: string;
}

export interface DiffSnapshotsInput {
  fromRef: string;
  toRef: string;
}
