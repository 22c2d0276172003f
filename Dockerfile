# The engine in a small image whose container speaks USI on standard input:
#
#   docker build -t minishogi-engine .
#   printf 'usi\nisready\nposition startpos\ngo movetime 1000\nquit\n' | docker run -i --rm minishogi-engine
#   docker run -i --rm minishogi-engine play 1        # any other command: engine help
#
# Stage 1 builds the release binary (the network weights are compiled into it); stage 2 is a
# slim Debian of the same release with that binary alone. Builder and runtime share Debian
# bookworm so that the binary finds the same glibc.

FROM rust:1-slim-bookworm AS build
WORKDIR /src
# The whole context (.dockerignore leaves out target/ and data): the manifest names the
# benches and examples, the binary embeds weights/.
COPY . .
RUN CARGO_PROFILE_RELEASE_STRIP=symbols cargo build --release --locked --bin engine

FROM debian:bookworm-slim
COPY --from=build /src/target/release/engine /usr/local/bin/engine
COPY LICENSE /usr/share/doc/engine/LICENSE
# Nothing to write: run as an unprivileged user.
USER 65534:65534
ENTRYPOINT ["/usr/local/bin/engine"]
