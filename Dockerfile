# A static payauthz on scratch. Build the binary first (no registry is
# needed for the image itself):
#   CGO_ENABLED=0 go build -trimpath -o bin/payauthz ./cmd/payauthz
#   docker build -t payauthz:local .
FROM scratch
COPY bin/payauthz /payauthz
VOLUME ["/data"]
EXPOSE 8080
ENTRYPOINT ["/payauthz", "serve", "--data-dir", "/data"]
