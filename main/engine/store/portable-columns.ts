// Column types every engine table module shares, so they need not import each other.

/** 0 or 1: the portable boolean column (booleans are stored as 0/1 in both dialects). */
export type Flag = 0 | 1;

/**
 * A value as a boolean column stores it: 1 for anything true, 0 otherwise. Every write
 * of a boolean, the engine's and the replica's, goes through this; a read compares with 1.
 */
export const toFlag = (value: unknown): Flag => (value ? 1 : 0);
