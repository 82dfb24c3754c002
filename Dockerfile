# A static payauthz on scratch, run as an unprivileged user (uid/gid 65532,
# "payauthz"). Build the binary and the root filesystem first (no registry
# is needed for the image itself); scripts/build-images.sh does both:
#   CGO_ENABLED=0 go build -trimpath -o bin/payauthz ./cmd/payauthz
#   mkdir -p bin/rootfs/data && echo 'payauthz:x:65532:65532::/data:/payauthz' > bin/rootfs/passwd
#   docker build -t payauthz:local .
FROM scratch
COPY bin/rootfs/passwd /etc/passwd
COPY --chown=65532:65532 bin/rootfs/data /data
COPY bin/payauthz /payauthz
USER 65532:65532
VOLUME ["/data"]
EXPOSE 8080
ENV PAYAUTHZ_HTTP_ADDR=:8080
# healthcheck probes /readyz on PAYAUTHZ_HTTP_ADDR: healthy once the
# projections have applied the log as of start-up.
HEALTHCHECK --interval=5s --timeout=3s --start-period=5s --retries=12 CMD ["/payauthz", "healthcheck"]
ENTRYPOINT ["/payauthz", "serve", "--data-dir", "/data"]
