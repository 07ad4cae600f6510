// Column types every engine table module shares, so they need not import each other.

/** 0 or 1: the portable boolean column (booleans are stored as 0/1 in both dialects). */
export type Flag = 0 | 1;
