#!/bin/sh
# Builds the static binaries (payauthz, and nats-server from the Go module
# proxy at the version go.mod pins) and the two local images used by
# docker-compose.yml and the testcontainers tests:
#   payauthz:local       FROM scratch + bin/payauthz, user 65532, HEALTHCHECK payauthz healthcheck
#   payauthz-nats:local  FROM scratch + bin/nats-server, user 65532, HEALTHCHECK on its /healthz
# It also creates deploy/secrets/admin-password (random, git-ignored), the
# first-start administrator password of the compose services: the file is
# readable (0644) so the containers' unprivileged user can read it through
# the bind mount, inside a directory only its owner may enter (0700).
set -eu
cd "$(dirname "$0")/.."
mkdir -p bin/rootfs/data
echo 'payauthz:x:65532:65532:payauthz:/data:/payauthz' > bin/rootfs/passwd
export CGO_ENABLED=0
rev=$(git rev-parse HEAD 2>/dev/null || echo unknown)
go build -trimpath -ldflags="-s -w -X main.commit=$rev" -o bin/payauthz ./cmd/payauthz
go build -trimpath -ldflags="-s -w" -o bin/nats-server github.com/nats-io/nats-server/v2
docker build -q -t payauthz:local .
docker build -q -t payauthz-nats:local -f deploy/nats/Dockerfile .
mkdir -p deploy/secrets
chmod 0700 deploy/secrets
if [ ! -s deploy/secrets/admin-password ]; then
	head -c 18 /dev/urandom | base64 | tr '+/' '-_' > deploy/secrets/admin-password
	echo "generated deploy/secrets/admin-password (first-start password of operator admin)"
fi
chmod 0644 deploy/secrets/admin-password
