import { describe, expect, it } from 'vitest';
import { createPartStack } from '../../../../src/server/parts/serve-part.js';

describe('createPartStack', () => {
  it('closes its parts last first, once, however often it is asked', async () => {
    const closed: string[] = [];
    const stack = createPartStack();
    const part = (name: string) => ({
      async close() {
        await new Promise((resolve) => setImmediate(resolve));
        closed.push(name);
      },
    });
    const database = stack.add(part('database'));
    stack.add(part('store'));
    stack.add({ close: () => void closed.push('receiver') });
    expect(database).toBeDefined();
    await Promise.all([stack.close(), stack.close()]);
    await stack.close();
    expect(closed).toEqual(['receiver', 'store', 'database']);
    expect(() => stack.add(part('late'))).toThrow(TypeError);
  });
});
