#!/usr/bin/env bash
# scripts/check-pdf-signature.sh FILE.pdf: exits 0 only when poppler's pdfsig finds a digital signature
# in FILE.pdf and reports it valid ("Signature Validation: Signature is Valid."). The certificate's own
# status is printed but not required: Gather's organization certificates are self-signed, so pdfsig
# calls their issuer unknown. Installs poppler-utils with apt-get where pdfsig is missing (as root).
# pdfsig itself exits 0 whatever it finds, hence the reading of its report.
set -euo pipefail

if [ $# -ne 1 ] || [ ! -f "$1" ]; then
  echo "usage: $0 FILE.pdf" >&2
  exit 2
fi

if ! command -v pdfsig >/dev/null; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "check-pdf-signature: pdfsig is missing; install poppler-utils (apt-get install -y poppler-utils) or run as root" >&2
    exit 2
  fi
  echo "check-pdf-signature: installing poppler-utils with apt-get…" >&2
  export DEBIAN_FRONTEND=noninteractive
  # Another apt-get on the machine may hold the lock for a while; wait for it rather than fail.
  apt-get -o DPkg::Lock::Timeout=600 update -q >&2
  apt-get -o DPkg::Lock::Timeout=600 install -y -q --no-install-recommends poppler-utils >&2
  echo "check-pdf-signature: installed $(pdfsig -v 2>&1 | head -n 1)" >&2
fi

report=$(pdfsig "$1" 2>&1) || true
echo "$report" >&2
if ! grep -q '^Signature #1:' <<<"$report"; then
  echo "check-pdf-signature: $1 holds no digital signature" >&2
  exit 1
fi
# Every signature of the file must be valid, not just the first.
signatures=$(grep -c '^Signature #' <<<"$report")
valid=$(grep -c 'Signature Validation: Signature is Valid\.' <<<"$report" || true)
if [ "$valid" -ne "$signatures" ]; then
  echo "check-pdf-signature: $1: $valid of $signatures signatures valid" >&2
  exit 1
fi
echo "check-pdf-signature: $1: signature valid ($signatures)" >&2
