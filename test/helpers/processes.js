'use strict';
// Lists the desktop processes a sandbox may start (its buses and the test
// programs included), as pid -> command line.
const fs = require('fs');

const PATTERN = /(^|\/)(Xvfb|openbox|chromium|x11vnc|ffmpeg|dbus-daemon|at-spi-bus-launcher|at-spi2-registryd|gtk3-widget-factory|qt5ct)( |$)|lib\/sandbox\/agent\/main\.[jt]s/;

function desktopProcesses() {
  const found = {};
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
      if (PATTERN.test(cmd)) found[pid] = cmd;
    } catch { /* exited */ }
  }
  return found;
}

module.exports = { desktopProcesses };
