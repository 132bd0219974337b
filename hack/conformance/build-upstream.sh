#!/bin/bash
# Builds upstream's e2e.test, kube-controller-manager and kubectl (v1.24.0-alpha.1+e5f3f020084e16) into
# $ANCHOR_DIR/bin. Run by hand only; not part of `make test` or CI. About 30-60 minutes on 2 busy cores.
#
# Needs: Debian's golang-1.19 and golang-google-api-dev (apt-get install -y golang-1.19 golang-google-api-dev),
# python3, and local bare git copies of two public repositories (the snapshot of upstream's source,
# and aws-sdk-go for its generator and the EC2 model):
#   K8S_GIT=<bare git dir of Akiqqqqqqq/k8s>  AWS_GIT=<bare git dir of aws/aws-sdk-go (tag v1.38.49)>
# Each step is skipped when its output exists (FORCE=1 redoes all). Heavy steps run under `nice -n 19`.
#
# Why the extra generation steps: the snapshot lacks a few large blobs. The missing swagger.json test
# data is not needed; three vendored generated files are, for e2e.test only (kube-controller-manager
# and kubectl build without them, and none of the three needs pkg/generated/openapi):
#  - vendor/github.com/aws/aws-sdk-go/service/ec2/api.go: aws-sdk-go's own gen-api at v1.38.49 over
#    models/apis/ec2/2016-11-15/api-2.json (the version vendor/modules.txt pins);
#  - vendor/google.golang.org/api/compute/{v1,v0.beta,v0.alpha}/compute-gen.go: Debian's
#    google-api-go-generator over the vendored compute-api.json, with its version string set to the
#    one v0.46.0's generated files carry (gdcl/20210502, as in the vendored container-gen.go).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ANCHOR_DIR="${ANCHOR_DIR:?set ANCHOR_DIR to the build folder, e.g. /work/anchor}"
K8S_GIT="${K8S_GIT:?set K8S_GIT to the bare git dir of the upstream snapshot}"
AWS_GIT="${AWS_GIT:-}"
COMMIT=e5f3f020084e16d045a02a9e118064e9aa0d7754
LDFLAGS_FILE="${LDFLAGS_FILE:-$HERE/ldflags.txt}"
GO=/usr/lib/go-1.19/bin
SRC="$ANCHOR_DIR/go/src/k8s.io/kubernetes"
mkdir -p "$ANCHOR_DIR/bin" "$ANCHOR_DIR/logs"
need() { [[ "${FORCE:-0}" == 1 || ! -e "$1" ]]; }

# 1. Source tree, blob by blob (GOPATH layout, as upstream's generators expect).
if need "$SRC/go.mod"; then
  nice -n 19 python3 "$HERE/extract-source.py" "$K8S_GIT" "$COMMIT" "$SRC"
fi

# 2a. aws-sdk-go's EC2 client (e2e.test only).
EC2="$SRC/vendor/github.com/aws/aws-sdk-go/service/ec2/api.go"
if need "$EC2"; then
  [[ -n "$AWS_GIT" ]] || { echo "set AWS_GIT to build e2e.test (needs $EC2)" >&2; exit 1; }
  AWS="$ANCHOR_DIR/awsgen/src/github.com/aws/aws-sdk-go"
  nice -n 19 python3 "$HERE/extract-source.py" "$AWS_GIT" v1.38.49 "$AWS" || true
  mkdir -p "$ANCHOR_DIR/awsdeps" && ln -sfn "$SRC/vendor" "$ANCHOR_DIR/awsdeps/src"   # x/net, jmespath
  (cd "$AWS/service" && PATH=$GO:$PATH GOPATH="$ANCHOR_DIR/awsgen:$ANCHOR_DIR/awsdeps" GO111MODULE=off GOFLAGS= \
     CGO_ENABLED=0 GOCACHE="$ANCHOR_DIR/gocache" \
     nice -n 19 go run -tags codegen ../private/model/cli/gen-api/main.go -path=../service \
       ../models/apis/ec2/2016-11-15/api-2.json)
  cp "$AWS/service/ec2/api.go" "$EC2"
fi

# 2b. google.golang.org/api compute clients (e2e.test only).
if need "$SRC/vendor/google.golang.org/api/compute/v1/compute-gen.go"; then
  G="$ANCHOR_DIR/gapigen/src/google.golang.org/api"
  D=/usr/share/gocode/src/google.golang.org/api
  [[ -d "$D/google-api-go-generator" ]] || { echo "apt-get install golang-google-api-dev" >&2; exit 1; }
  rm -rf "$G" && mkdir -p "$G/internal"
  cp -r "$D/google-api-go-generator" "$G/" && cp -r "$D/internal/version" "$G/internal/"
  sed -i -E 's/^const Repo = "[0-9]+"/const Repo = "20210502"/' "$G/internal/version/version.go"
  (cd "$G/google-api-go-generator" && PATH=$GO:$PATH GOPATH="$ANCHOR_DIR/gapigen" GO111MODULE=off GOFLAGS= \
     CGO_ENABLED=0 GOCACHE="$ANCHOR_DIR/gocache" nice -n 19 go build -o "$ANCHOR_DIR/gapigen/generator" .)
  for v in v1 v0.beta v0.alpha; do
    V="$SRC/vendor/google.golang.org/api/compute/$v"
    nice -n 19 "$ANCHOR_DIR/gapigen/generator" -cache=false -api_json_file="$V/compute-api.json" \
      -output="$V/compute-gen.go" -copyright_year=2021 -gendir="$ANCHOR_DIR/tmp/gapi"
  done
fi

# 3. The binaries (vendored modules only; version stamped as the reference build).
export PATH=$GO:$PATH GOPATH="$ANCHOR_DIR/go" GOFLAGS=-mod=vendor GOPROXY=off CGO_ENABLED=0 \
  GOCACHE="$ANCHOR_DIR/gocache" GO111MODULE=on
LDFLAGS="$(cat "$LDFLAGS_FILE")"
cd "$SRC"
if need "$ANCHOR_DIR/bin/kube-controller-manager"; then
  nice -n 19 go build -p 2 -tags providerless -ldflags "$LDFLAGS" \
    -o "$ANCHOR_DIR/bin/kube-controller-manager" ./cmd/kube-controller-manager
fi
if need "$ANCHOR_DIR/bin/kubectl"; then
  nice -n 19 go build -p 2 -ldflags "$LDFLAGS" -o "$ANCHOR_DIR/bin/kubectl" ./cmd/kubectl
fi
if need "$ANCHOR_DIR/bin/e2e.test"; then
  nice -n 19 go test -c -p 2 -ldflags "$LDFLAGS" -o "$ANCHOR_DIR/bin/e2e.test" ./test/e2e
fi
ls -la "$ANCHOR_DIR/bin"
