// Undo log for state changes: a failed transaction (or a simulation) rolls its writes back
// while the fee and sequence it already paid stay, as in the SDK's cached multistore.

export interface Journal {
  /** Registers how to undo a write that just happened. */
  record(undo: () => void): void;
  mark(): number;
  /** Undoes every write recorded since `mark`, newest first. */
  revertTo(mark: number): void;
  /** Forgets the undo entries (the writes become permanent). */
  clear(): void;
}

export function createJournal(): Journal {
  let undos: (() => void)[] = [];
  return {
    record(undo) {
      undos.push(undo);
    },
    mark: () => undos.length,
    revertTo(mark) {
      for (let i = undos.length - 1; i >= mark; i--) undos[i]!();
      undos.length = mark;
    },
    clear() {
      undos = [];
    },
  };
}
