#!/bin/sh
# Builds the static binaries (payauthz, and nats-server from the Go module
# proxy at the version go.mod pins) and the two local images used by
# docker-compose.yml and the testcontainers tests:
#   payauthz:local       FROM scratch + bin/payauthz
#   payauthz-nats:local  FROM scratch + bin/nats-server
# It also creates deploy/admin-password (random, mode 0600, git-ignored),
# the first-start administrator password shared by the compose replicas.
set -eu
cd "$(dirname "$0")/.."
mkdir -p bin
export CGO_ENABLED=0
go build -trimpath -ldflags="-s -w" -o bin/payauthz ./cmd/payauthz
go build -trimpath -ldflags="-s -w" -o bin/nats-server github.com/nats-io/nats-server/v2
docker build -q -t payauthz:local .
docker build -q -t payauthz-nats:local -f deploy/nats/Dockerfile .
if [ ! -s deploy/admin-password ]; then
	umask 077
	head -c 18 /dev/urandom | base64 | tr '+/' '-_' > deploy/admin-password
	echo "generated deploy/admin-password (first-start password of operator admin)"
fi
