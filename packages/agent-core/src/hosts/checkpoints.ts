/** Loop checkpoints, one API on two hosts (patched pi's `checkpoint`, stock pi's boundaries). Work in progress. */
export {};
