import readline from 'readline';

/** A yes-or-no question on the terminal (where there is none: no); no answer within the bound is no. */
export function confirm(question: string, boundMs: number, input: NodeJS.ReadableStream & { isTTY?: boolean } = process.stdin, output: NodeJS.WritableStream & { isTTY?: boolean } = process.stdout): Promise<boolean> {
  if (!input.isTTY || !output.isTTY) return Promise.resolve(false);
  const terminal = readline.createInterface({ input, output });
  return new Promise((resolve) => {
    const bound = setTimeout(() => {
      terminal.close();
      output.write('(no answer: not saved)\n');
      resolve(false);
    }, boundMs);
    terminal.question(question, (answer) => {
      clearTimeout(bound);
      terminal.close();
      resolve(/^y(es)?$/i.test(answer.trim()));
    });
  });
}
