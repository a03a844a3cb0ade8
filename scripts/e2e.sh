#!/usr/bin/env bash
# npm run test:e2e: the browser tests (test/e2e/*.e2e.ts) in headless Chromium. Installs Debian's
# chromium (the browser playwright-core drives), poppler-utils (pdfsig, which checks the signed
# PDFs) and the Noto fonts of the portal's scripts where they are missing, then runs jest with the
# e2e configuration; arguments go to jest.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v chromium >/dev/null || missing+=(chromium)
command -v pdfsig >/dev/null || missing+=(poppler-utils)
# The portal's screenshots in Chinese, Korean, Arabic, Hebrew and Punjabi need the browser to have their scripts.
[ -n "$(fc-list :lang=zh 2>/dev/null)" ] || missing+=(fonts-noto-cjk)
[ -n "$(fc-list :lang=pa 2>/dev/null)" ] || missing+=(fonts-noto-core)
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "e2e: ${missing[*]} missing; install them (apt-get install -y ${missing[*]}) or run as root" >&2
    exit 1
  fi
  echo "e2e: installing ${missing[*]} with apt-get (a few minutes on a fresh machine)…" >&2
  export DEBIAN_FRONTEND=noninteractive
  # Another apt-get on the machine holds the lock for a while; wait for it rather than fail.
  apt-get -o DPkg::Lock::Timeout=600 update -q >&2
  apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends "${missing[@]}" fonts-dejavu-core >&2
  echo "e2e: installed ${missing[*]}" >&2
fi
echo "e2e: $(chromium --version 2>/dev/null), $(pdfsig -v 2>&1 | head -n 1)" >&2

mkdir -p test/artifacts
exec npm run -s jest -- --config test/e2e/jest.config.js "$@"
