#!/usr/bin/env bash
# Installs Debian's haproxy when it is not on PATH (the local HA cluster puts it in front).
set -euo pipefail
if command -v haproxy >/dev/null 2>&1; then exit 0; fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq haproxy >/dev/null
command -v haproxy >/dev/null 2>&1 || { echo "haproxy still not on PATH after installing haproxy" >&2; exit 1; }
