import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shellCommand } from '../../lib/sandbox/agent/exec';
import { ffmpegArgs } from '../../lib/sandbox/agent/dashcam';

// What the agent runs differently on a Windows machine (none runs here: the
// commands are checked, not run). The nut-js driver itself is exercised on an
// X display in test/integration/nut-agent.test.ts.

test("exec's code goes to PowerShell on Windows and to sh elsewhere", () => {
  assert.deepEqual(shellCommand('Get-Date', 'win32'), ['powershell.exe', ['-NoProfile', '-NonInteractive', '-Command', 'Get-Date']]);
  assert.deepEqual(shellCommand('date', 'linux'), ['sh', ['-c', 'date']]);
});

test("the dashcam records Windows' desktop through gdigrab and an X display through x11grab, into the same clip", () => {
  const windows = ffmpegArgs('desktop', 1920, 1080, 'clip.mp4', 'win32');
  assert.deepEqual(windows.slice(windows.indexOf('-f'), windows.indexOf('-i') + 2), ['-f', 'gdigrab', '-framerate', '10', '-i', 'desktop']);
  const x11 = ffmpegArgs(':3', 1366, 768, 'clip.mp4', 'linux');
  assert.deepEqual(x11.slice(x11.indexOf('-f'), x11.indexOf('-i') + 2), ['-f', 'x11grab', '-framerate', '10', '-video_size', '1366x768', '-i', ':3']);
  assert.deepEqual(windows.slice(windows.indexOf('-c:v')), x11.slice(x11.indexOf('-c:v')), 'the same encoding either way');
});
