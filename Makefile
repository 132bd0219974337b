# make run: set up and start one replica on the embedded default (local etcd child, data in ./data).
# make test: build, then unit, integration (real etcd) and end-to-end (real kubectl) tests.
NODE_JEST = node --experimental-vm-modules node_modules/jest/bin/jest.js
DATA_DIR ?= ./data
PORT ?= 6443
# Extra server flags for `make run`, e.g. ARGS="--feature-gates=ConsistentListFromCache=false".
ARGS ?=

.PHONY: all deps test-deps build run print-run-flags test test-unit clean bench bench-side-by-side up-ha down-ha e2e-ha

# What the tests drive besides Node and kubectl, as COMMAND=DEBIAN_PACKAGE: etcd for every
# integration and e2e test, HAProxy and Prometheus for the HA suite, promtool and systemd-analyze
# for the deploy/ checks, openssl for the certificate tests, and the C/C++ compilers for the
# optional native addons whose tests expect them built.
TEST_TOOLS = etcd=etcd-server haproxy=haproxy prometheus=prometheus promtool=prometheus \
	systemd-analyze=systemd openssl=openssl cc=gcc c++=g++

all: build

node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

deps: node_modules/.package-lock.json
	@bash hack/ensure-tools.sh etcd=etcd-server

test-deps:
	@bash hack/ensure-tools.sh $(TEST_TOOLS)

build: deps
	npx tsc -b
	@node packages/server/dist/src/stamp-build-info.js
	@# npm links a workspace's bin only when its target exists at install time: link it after the build.
	@chmod +x packages/credential-plugin/dist/src/main.js
	@ln -sf ../../packages/credential-plugin/dist/src/main.js node_modules/.bin/cluster-credential
	@bash hack/build-native.sh

# make run's flags, written here alone: a single-machine cluster ready for machines to join
# (bootstrap tokens, every controller with the bootstrap signer and token cleaner, the installer's
# node-join bindings), authorized by Node,RBAC (anonymous requests on, as with any mode but
# AlwaysAllow, so a joining machine reads cluster-public/cluster-info). hack/make-run.sh reads them
# through `make print-run-flags`, so test-e2e/make-run.test.ts starts the server as `make run` does.
# The authorization mode stands in the recipe itself, where a reader of `make run` sees it.
RUN_FLAGS = --bind-address 127.0.0.1 --enable-bootstrap-token-auth --node-join-bindings \
	--controllers='*,bootstrapsigner,tokencleaner'

run: build
	node packages/server/dist/src/main.js --data-dir $(DATA_DIR) --secure-port $(PORT) --authorization-mode=Node,RBAC $(RUN_FLAGS) $(ARGS)

print-run-flags:
	@echo "--authorization-mode=Node,RBAC $(RUN_FLAGS)"

test: test-deps build
	$(NODE_JEST) --forceExit --json --outputFile=test-results.json

test-unit: test-deps build
	$(NODE_JEST) --selectProjects unit

# `make bench KUBECONFIG=<file>`: the request workloads against the server that kubeconfig reaches
# (only a KUBECONFIG given on make's command line, not one exported in the shell for kubectl).
bench: build
	node hack/bench/run.mjs $(if $(filter command line,$(origin KUBECONFIG)),--kubeconfig=$(KUBECONFIG))

# Upstream's kube-apiserver (UPSTREAM_KUBE_APISERVER) and a replica, the same workloads, CPU side by side
# and the CPU budgets they give (hack/bench/README.md); ROUNDS=N rounds.
bench-side-by-side: build
	node hack/bench/side-by-side.mjs --rounds=$(or $(ROUNDS),1)

clean:
	rm -rf packages/*/dist test-results.json

# The HA control plane on this machine: three etcd members, three replicas, HAProxy in front.
up-ha: build
	@bash hack/ensure-tools.sh haproxy=haproxy
	bash hack/local-up-ha.sh up

down-ha:
	bash hack/local-up-ha.sh down

# The HA suites alone (faults, aggregation): each brings its own cluster up (in a temporary directory) and down.
e2e-ha: build
	@bash hack/ensure-tools.sh haproxy=haproxy prometheus=prometheus openssl=openssl
	$(NODE_JEST) --selectProjects e2e --runInBand test-e2e/ha/

.PHONY: conformance e2e-upstream
# Optional, by hand, not part of `make test`: upstream's binaries built by hack/conformance/build-upstream.sh.
# `make conformance [KUBECONFIG=<file>]`: the reference [Conformance] specs against a running server
# (default: the one `make run` started); summary under conformance-results/. See hack/conformance/README.md.
conformance:
	bash hack/conformance/run.sh $(if $(filter command line,$(origin KUBECONFIG)),$(KUBECONFIG),$(DATA_DIR)/admin.kubeconfig) $(CURDIR)/conformance-results

# Upstream's kube-controller-manager against a fresh replica (skipped when its binary is absent).
e2e-upstream: build
	$(NODE_JEST) --selectProjects e2e test-e2e/upstream-controller-manager.test.ts
