'use strict';
// Lists the desktop processes a sandbox may start (its buses and the test
// programs included), as pid -> command line; and the folders sandboxes and
// self-hosted agents make in the system's temp folder.
const fs = require('fs');
const os = require('os');

const PATTERN = /(^|\/)(Xvfb|openbox|chromium|x11vnc|ffmpeg|dbus-daemon|at-spi-bus-launcher|at-spi2-registryd|gtk3-widget-factory|qt5ct)( |$)|lib\/sandbox\/agent\/main\.[jt]s|bin\/glance\.js agent( |$)/;

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

/**
 * The local sandboxes' folders, the self-hosted agents' work folders, and the
 * singleton folders of Chromiums ended before they could remove theirs, in the
 * temp folder, by name.
 */
function ownedTempFolders() {
  return fs.readdirSync(os.tmpdir()).filter((name) => /^(glance-(sbx|agent)-|org\.chromium\.Chromium\.)/.test(name)).sort();
}

module.exports = { desktopProcesses, ownedTempFolders };
