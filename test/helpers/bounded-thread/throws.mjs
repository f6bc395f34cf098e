/** A thread that writes a line, then throws outside any handler (it never posts an exit code). */
process.stdout.write('about to fail\n');
setTimeout(() => {
  throw new Error('a failure nobody caught');
}, 10);
