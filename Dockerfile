# The engine in a small image whose container speaks USI on standard input:
#
#   docker build -t minishogi-engine .
#   printf 'usi\nisready\nposition startpos\ngo movetime 1000\nquit\n' | docker run -i --rm minishogi-engine
#   docker run -i --rm minishogi-engine play 1        # the other commands: minishogi-engine help
#
# Stage 1 builds the playing engine's release binary, `minishogi-engine` (the network weights are
# compiled into it; none of the lab's crates is built); stage 2 is a slim Debian of the same
# release with that binary alone. Builder and runtime share Debian
# bookworm so that the binary finds the same glibc.

FROM rust:1-slim-bookworm AS build
WORKDIR /src
# The whole context (.dockerignore leaves out target/ and data): the manifest names the
# benches and examples, the binary embeds weights/.
COPY . .
RUN CARGO_PROFILE_RELEASE_STRIP=symbols cargo build --release --locked -p minishogi-engine --bin minishogi-engine

FROM debian:bookworm-slim
COPY --from=build /src/target/release/minishogi-engine /usr/local/bin/minishogi-engine
COPY LICENSE /usr/share/doc/minishogi-engine/LICENSE
# Nothing to write: run as an unprivileged user.
USER 65534:65534
ENTRYPOINT ["/usr/local/bin/minishogi-engine"]
