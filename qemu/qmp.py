#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# Send one QMP command to a running QEMU and print the reply.
#
#   qemu/qmp.py SOCKET COMMAND [JSON-ARGUMENTS]
#   e.g. qemu/qmp.py build/runs/x/qmp.sock eject '{"device": "card0", "force": true}'
#
# Exit 0 on a "return" reply, 1 on an "error" reply or no connection.
import json
import socket
import sys


def main():
    if len(sys.argv) < 3:
        print("usage: qmp.py SOCKET COMMAND [JSON-ARGUMENTS]", file=sys.stderr)
        return 2
    path, command = sys.argv[1], sys.argv[2]
    args = json.loads(sys.argv[3]) if len(sys.argv) > 3 else None
    try:
        sock = socket.socket(socket.AF_UNIX)
        sock.settimeout(30)
        sock.connect(path)
    except OSError as e:
        print(f"qmp: cannot connect to {path}: {e}", file=sys.stderr)
        return 1
    f = sock.makefile("rw")

    def send(cmd, arguments=None):
        msg = {"execute": cmd}
        if arguments is not None:
            msg["arguments"] = arguments
        f.write(json.dumps(msg) + "\n")
        f.flush()
        while True:     # skip asynchronous events
            reply = json.loads(f.readline())
            if "return" in reply or "error" in reply:
                return reply

    json.loads(f.readline())        # the greeting
    send("qmp_capabilities")
    reply = send(command, args)
    print(json.dumps(reply))
    return 0 if "return" in reply else 1


if __name__ == "__main__":
    sys.exit(main())
