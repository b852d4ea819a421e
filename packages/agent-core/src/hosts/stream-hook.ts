/** The stream hook, one API on two hosts (patched pi's `stream_text`, stock pi's public events). Work in progress. */
export {};
