#!/usr/bin/env bash
# The container tests: Docker's engine (Debian's docker.io, started here if it
# is not running), debootstrap for the image's base, the sandbox image built
# with 'glance image build', then test/containers/. npm test does not need any
# of it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

missing=()
for pkg in docker.io debootstrap; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "glance containers: installing ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! docker info >/dev/null 2>&1; then
  echo "glance containers: starting dockerd"
  nohup dockerd >/var/log/glance-dockerd.log 2>&1 &
  for _ in $(seq 1 60); do
    docker info >/dev/null 2>&1 && break
    sleep 0.5
  done
  docker info >/dev/null 2>&1 || { echo "dockerd did not start within 30 s; see /var/log/glance-dockerd.log" >&2; exit 1; }
fi

node bin/glance.js image build
node scripts/test.js test/containers/*.test.ts
