#!/usr/bin/env bash
# Sets up everything Glance needs on a Debian machine, and is quick when it is
# all there already: the desktop packages a sandbox runs on, the npm packages,
# the JavaScript build in dist/, and an API key in .env.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages: openssl (a test makes a certificate for the team server's HTTPS), X server, window manager, browser, fonts, VNC, video (ffmpeg, ffprobe), the socket statistics redraw
# detection reads (ss) and pgrep, small X tools, Tk for the example desktop program, the session bus and AT-SPI that carry
# the accessibility tree, GTK (widget factory, zenity and yad dialogs) and Qt programs (qt5ct, featherpad, pcmanfm-qt, keepassxc, kid3-qt, lxqt-config-notificationd) that tests and
# the real-UI bench read it from, IDLE (a Tk program of the acceptance suite), xdotool (the recorder tests play a person with it), and tesseract's fast English model (read by the OCR engine).
packages=(openssl xvfb openbox chromium fonts-dejavu-core fonts-liberation x11vnc ffmpeg iproute2 procps x11-utils python3-tk dbus at-spi2-core gtk-3-examples qt5ct zenity yad featherpad pcmanfm-qt keepassxc kid3-qt lxqt-notificationd idle-python3.11 xdotool tesseract-ocr-eng)
missing=()
for pkg in "${packages[@]}"; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "glance setup: installing ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "glance setup: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The unprivileged user that runs what sandboxes start when Glance runs as root (see lib/sandbox/agent/sandbox-user.ts).
if [ "$(id -u)" -eq 0 ] && ! id glance-sandbox >/dev/null 2>&1; then
  useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin glance-sandbox
fi

# npm packages: a clean install on a fresh clone, an update when the lock file changed.
# better-sqlite3 compiles SQLite from source where its prebuilt binary cannot be
# downloaded (it comes from GitHub): at -O1 that takes 37 s instead of 73 s at
# its default -O3, and a lookup by key still takes 9 µs (8.5 µs at -O3).
optimise=(CFLAGS="${CFLAGS:--O1}" CXXFLAGS="${CXXFLAGS:--O1}")
if [ ! -f node_modules/.package-lock.json ]; then
  env "${optimise[@]}" npm ci --no-audit --no-fund
elif [ package-lock.json -nt node_modules/.package-lock.json ]; then
  env "${optimise[@]}" npm install --no-audit --no-fund
fi

# The build Glance runs from (dist/: JavaScript and declarations; incremental), and an API key.
node scripts/build.js
node bin/glance.js init
