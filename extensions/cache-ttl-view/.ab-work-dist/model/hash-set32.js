/**
 * A set of 32-bit hashes in one typed array (open addressing, linear probing). The analysis asks it about every
 * block of a list; a `Set` of numbers grows a table on the JS heap that the collector copies on each young
 * collection, while this one lives off it. Values are hashes already, so their low bits index the table.
 */
export class HashSet32 {
    /** Slots hold `value + 1` (as uint32 arithmetic wraps, 0xffffffff is kept apart); 0 marks an empty slot. */
    #slots;
    #size = 0;
    #hasMax = false;
    constructor(capacity = 512) {
        this.#slots = new Uint32Array(HashSet32.#slotsFor(capacity));
    }
    /** Slots for `count` values at most half full. */
    static #slotsFor(count) {
        let n = 1024;
        while (n < count * 2)
            n *= 2;
        return n;
    }
    /** Make room for `count` values in all (one table built now instead of growing through every size). */
    reserve(count) {
        const n = HashSet32.#slotsFor(count);
        if (n > this.#slots.length)
            this.#rehash(n);
    }
    get size() {
        return this.#size + (this.#hasMax ? 1 : 0);
    }
    has(value) {
        const v = value >>> 0;
        if (v === 0xffffffff)
            return this.#hasMax;
        const slots = this.#slots;
        const mask = slots.length - 1;
        for (let i = v & mask;; i = (i + 1) & mask) {
            const s = slots[i];
            if (s === 0)
                return false;
            if (s === v + 1)
                return true;
        }
    }
    add(value) {
        const v = value >>> 0;
        if (v === 0xffffffff) {
            this.#hasMax = true;
            return;
        }
        if ((this.#size + 1) * 2 > this.#slots.length)
            this.#rehash(this.#slots.length * 2);
        if (this.#insert(this.#slots, v + 1))
            this.#size++;
    }
    /** Put a stored slot value in `slots`; whether it was new. */
    #insert(slots, stored) {
        const mask = slots.length - 1;
        for (let i = (stored - 1) & mask;; i = (i + 1) & mask) {
            const s = slots[i];
            if (s === stored)
                return false;
            if (s === 0) {
                slots[i] = stored;
                return true;
            }
        }
    }
    #rehash(size) {
        const old = this.#slots;
        const slots = new Uint32Array(size);
        for (let i = 0; i < old.length; i++)
            if (old[i] !== 0)
                this.#insert(slots, old[i]);
        this.#slots = slots;
    }
}
//# sourceMappingURL=hash-set32.js.map