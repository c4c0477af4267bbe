'use strict';
// How the sandboxes' agents under a folder ended, from their agent.log files,
// as a few lines: each reason with how many agents ended so, and the stack of
// any that crashed. The test runner prints it when the suite fails, since the
// suite's folder, logs and all, is removed afterwards.
const fs = require('fs');
const path = require('path');

const MAX_CRASH_CHARS = 3000;

function agentEndings(root) {
  const reasons = new Map();
  const crashes = [];
  const walk = (dir) => {
    let entries = [];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (entry.name === 'agent.log') read(file);
    }
  };
  const read = (file) => {
    const text = fs.readFileSync(file, 'utf8');
    for (const match of text.matchAll(/ stopped: (.*)$/gm)) reasons.set(match[1], (reasons.get(match[1]) ?? 0) + 1);
    const crash = text.indexOf(' crashed: ');
    if (crash >= 0) crashes.push(`${file}:\n${text.slice(crash, crash + MAX_CRASH_CHARS)}`);
  };
  walk(root);
  if (!reasons.size && !crashes.length) return [];
  return [
    `How the sandboxes' agents ended: ${[...reasons].map(([reason, count]) => `${count} × ${reason}`).join('; ') || 'none logged an end'}`,
    ...crashes.map((crash) => `An agent crashed, ${crash}`),
  ];
}

module.exports = { agentEndings };
