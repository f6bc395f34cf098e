/** A thread that writes a line, then keeps everything it allocates until its heap is exhausted. */
process.stdout.write('filling the heap\n');
const kept = [];
for (;;) kept.push(new Array(100_000).fill({ n: kept.length }));
