/**
 * Tables keyed by 32-bit hashes in typed arrays (open addressing, linear probing). The analysis asks them about
 * every block of a list; a `Set` or `Map` of numbers grows a table on the JS heap that the collector copies on each
 * young collection, while these live off it. Keys are hashes already, so their low bits index the table.
 */

/** A map from uint32 keys to uint32 values. */
export class HashMap32 {
  /** Slots hold `key + 1` (as uint32 arithmetic wraps, 0xffffffff is kept apart); 0 marks an empty slot. */
  #slots: Uint32Array;
  #values: Uint32Array;
  #size = 0;
  /** The value of key 0xffffffff, when it is in. */
  #maxValue: number | undefined;

  constructor(capacity = 512) {
    const n = HashMap32.#slotsFor(capacity);
    this.#slots = new Uint32Array(n);
    this.#values = new Uint32Array(n);
  }

  /** Slots for `count` keys at most half full. */
  static #slotsFor(count: number): number {
    let n = 1024;
    while (n < count * 2) n *= 2;
    return n;
  }

  /** Make room for `count` keys in all (one table built now instead of growing through every size). */
  reserve(count: number): void {
    const n = HashMap32.#slotsFor(count);
    if (n > this.#slots.length) this.#rehash(n);
  }

  get size(): number {
    return this.#size + (this.#maxValue === undefined ? 0 : 1);
  }

  /** The value of `key` (signed or unsigned bits alike), or undefined. */
  get(key: number): number | undefined {
    const k = key >>> 0;
    if (k === 0xffffffff) return this.#maxValue;
    const slots = this.#slots;
    const mask = slots.length - 1;
    for (let i = k & mask; ; i = (i + 1) & mask) {
      const s = slots[i] as number;
      if (s === 0) return undefined;
      if (s === k + 1) return this.#values[i] as number;
    }
  }

  set(key: number, value: number): void {
    const k = key >>> 0;
    if (k === 0xffffffff) {
      this.#maxValue = value >>> 0;
      return;
    }
    if ((this.#size + 1) * 2 > this.#slots.length) this.#rehash(this.#slots.length * 2);
    if (this.#insert(this.#slots, this.#values, k + 1, value >>> 0)) this.#size++;
  }

  /** Put a stored slot and its value in the table; whether the key was new. */
  #insert(slots: Uint32Array, values: Uint32Array, stored: number, value: number): boolean {
    const mask = slots.length - 1;
    for (let i = (stored - 1) & mask; ; i = (i + 1) & mask) {
      const s = slots[i] as number;
      if (s === 0 || s === stored) {
        slots[i] = stored;
        values[i] = value;
        return s === 0;
      }
    }
  }

  #rehash(size: number): void {
    const [oldSlots, oldValues] = [this.#slots, this.#values];
    const [slots, values] = [new Uint32Array(size), new Uint32Array(size)];
    for (let i = 0; i < oldSlots.length; i++) {
      if (oldSlots[i] !== 0) this.#insert(slots, values, oldSlots[i] as number, oldValues[i] as number);
    }
    this.#slots = slots;
    this.#values = values;
  }
}

/** A set of uint32 values (the keys of a map whose values are not read). */
export class HashSet32 {
  readonly #map: HashMap32;

  constructor(capacity = 512) {
    this.#map = new HashMap32(capacity);
  }

  reserve(count: number): void {
    this.#map.reserve(count);
  }

  get size(): number {
    return this.#map.size;
  }

  has(value: number): boolean {
    return this.#map.get(value) !== undefined;
  }

  add(value: number): void {
    this.#map.set(value, 0);
  }
}
