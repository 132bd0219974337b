#!/usr/bin/env bash
# Installs Debian's packages for the commands that are not on PATH yet, so that the README's
# commands work on a machine that has only Node and kubectl.
#   hack/ensure-tools.sh COMMAND=PACKAGE [COMMAND=PACKAGE ...]
# One `apt-get update` at most, and only when something is missing. Fails naming the command
# that is still missing after the install.
set -euo pipefail
missing_packages=()
missing_commands=()
for pair in "$@"; do
  command_name=${pair%%=*}
  package=${pair#*=}
  if ! command -v "$command_name" >/dev/null 2>&1; then
    missing_commands+=("$command_name")
    missing_packages+=("$package")
  fi
done
[ ${#missing_packages[@]} -eq 0 ] && exit 0

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
# sort -u: several commands can come from one package (prometheus and promtool).
mapfile -t unique_packages < <(printf '%s\n' "${missing_packages[@]}" | sort -u)
echo "installing Debian packages for ${missing_commands[*]}: ${unique_packages[*]}" >&2
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq "${unique_packages[@]}" >/dev/null
for command_name in "${missing_commands[@]}"; do
  command -v "$command_name" >/dev/null 2>&1 || { echo "$command_name is still not on PATH after installing ${missing_packages[*]}" >&2; exit 1; }
done
