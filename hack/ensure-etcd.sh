#!/usr/bin/env bash
# Installs Debian's etcd-server when no etcd binary is on PATH (the embedded default needs one).
set -euo pipefail
if command -v etcd >/dev/null 2>&1; then exit 0; fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq etcd-server >/dev/null
command -v etcd >/dev/null 2>&1 || { echo "etcd still not on PATH after installing etcd-server" >&2; exit 1; }
