/**
 * A set of 32-bit hashes in one typed array (open addressing, linear probing). The analysis asks it about every
 * block of a list; a `Set` of numbers grows a table on the JS heap that the collector copies on each young
 * collection, while this one lives off it. Values are hashes already, so their low bits index the table.
 */
export declare class HashSet32 {
    #private;
    constructor(capacity?: number);
    /** Make room for `count` values in all (one table built now instead of growing through every size). */
    reserve(count: number): void;
    get size(): number;
    has(value: number): boolean;
    add(value: number): void;
}
//# sourceMappingURL=hash-set32.d.ts.map