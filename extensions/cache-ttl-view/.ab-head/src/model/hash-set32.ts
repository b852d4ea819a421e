/**
 * A set of 32-bit hashes in one typed array (open addressing, linear probing). The analysis asks it about every
 * block of a list; a `Set` of numbers grows a table on the JS heap that the collector copies on each young
 * collection, while this one lives off it. Values are hashes already, so their low bits index the table.
 */
export class HashSet32 {
  /** Slots hold `value + 1` (as uint32 arithmetic wraps, 0xffffffff is kept apart); 0 marks an empty slot. */
  #slots: Uint32Array;
  #size = 0;
  #hasMax = false;

  constructor(capacity = 1024) {
    let n = 1024;
    while (n < capacity * 2) n *= 2;
    this.#slots = new Uint32Array(n);
  }

  get size(): number {
    return this.#size + (this.#hasMax ? 1 : 0);
  }

  has(value: number): boolean {
    const v = value >>> 0;
    if (v === 0xffffffff) return this.#hasMax;
    const slots = this.#slots;
    const mask = slots.length - 1;
    for (let i = v & mask; ; i = (i + 1) & mask) {
      const s = slots[i] as number;
      if (s === 0) return false;
      if (s === v + 1) return true;
    }
  }

  add(value: number): void {
    const v = value >>> 0;
    if (v === 0xffffffff) {
      this.#hasMax = true;
      return;
    }
    if ((this.#size + 1) * 2 > this.#slots.length) this.#grow();
    if (this.#insert(this.#slots, v + 1)) this.#size++;
  }

  /** Put a stored slot value in `slots`; whether it was new. */
  #insert(slots: Uint32Array, stored: number): boolean {
    const mask = slots.length - 1;
    for (let i = (stored - 1) & mask; ; i = (i + 1) & mask) {
      const s = slots[i] as number;
      if (s === stored) return false;
      if (s === 0) {
        slots[i] = stored;
        return true;
      }
    }
  }

  #grow(): void {
    const old = this.#slots;
    const slots = new Uint32Array(old.length * 2);
    for (let i = 0; i < old.length; i++) if (old[i] !== 0) this.#insert(slots, old[i] as number);
    this.#slots = slots;
  }
}
