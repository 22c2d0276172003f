#!/bin/sh
# A USI engine that misbehaves on purpose, for the match referee's tests.
# Usage: misbehaving.sh MODE, where MODE is one of
#   illegal  answers every go with a drop of a pawn it does not have
#   timeout  never answers go (nor stop)
#   crash    exits when asked to move
#   garbage  answers go with chatter and a bestmove that is not a move
#   mute     never answers usi
mode="$1"
while IFS= read -r line; do
    case "$line" in
        usi)
            [ "$mode" = mute ] && continue
            echo "id name misbehaving-$mode"
            echo "usiok"
            ;;
        isready) echo "readyok" ;;
        go*)
            case "$mode" in
                illegal) echo "bestmove P*3c" ;;
                timeout) ;;
                crash) exit 3 ;;
                garbage)
                    echo "this is not USI"
                    echo "bestmove @@"
                    ;;
            esac
            ;;
        quit) exit 0 ;;
    esac
done
