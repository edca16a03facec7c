# SPDX-License-Identifier: MIT
"""A display socket of ivwl-server as a misbehaving server would serve it:
a proxy between weston and the real server, passing every message and
fd both ways, that can stop answering REGION (the display's ask for the
region's fd, protocol/device/server-msg.h) or answer it with another file.

    proxy = ServerProxy(listen_path, server_display_path)
    proxy.mode = "mute"     # REGION asks from weston are dropped
    proxy.mode = "wrong"    # REGION answers carry a memfd of their own
    proxy.mode = "pass"     # as the server says
"""

import os
import socket
import struct
import threading

# "IW", op 4 (REGION), no arguments: the ask and the answer alike.
REGION = 0x4957040000000000


class ServerProxy:
    def __init__(self, listen_path, target_path):
        self.target = target_path
        self.mode = "pass"
        self.dropped = 0        # asks kept from the server
        self.replaced = 0       # answers given another file
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(listen_path)
        self.listener.listen(8)
        self.socks = []
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while not self.closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                server.connect(self.target)
            except OSError:
                client.close()
                continue
            self.socks += [client, server]
            threading.Thread(target=self._to_server, args=(client, server),
                             daemon=True).start()
            threading.Thread(target=self._to_client, args=(server, client),
                             daemon=True).start()

    @staticmethod
    def _end(a, b):
        for s in (a, b):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def _to_server(self, client, server):
        """weston's requests: 8 bytes each, never an fd."""
        buf = b""
        while True:
            try:
                data = client.recv(4096)
            except OSError:
                data = b""
            if not data:
                break
            buf += data
            out = b""
            while len(buf) >= 8:
                msg, buf = buf[:8], buf[8:]
                (value,) = struct.unpack("<q", msg)
                if self.mode == "mute" and value == REGION:
                    self.dropped += 1
                    continue
                out += msg
            try:
                server.sendall(out)
            except OSError:
                break
        self._end(client, server)

    def _answer_fd(self, fds):
        """The fd to pass on for a REGION answer's fds."""
        if self.mode != "wrong" or not fds:
            return fds
        size = os.fstat(fds[0]).st_size
        for fd in fds:
            os.close(fd)
        other = os.memfd_create("not-the-region")
        os.ftruncate(other, size)
        self.replaced += 1
        return [other]

    def _to_client(self, server, client):
        """The server's messages: 8 bytes, with at most one fd each."""
        while True:
            try:
                msg, fds, _, _ = socket.recv_fds(server, 8, 4,
                                                 socket.MSG_WAITALL)
            except OSError:
                break
            if len(msg) < 8:
                for fd in fds:
                    os.close(fd)
                break
            (value,) = struct.unpack("<q", msg)
            if value == REGION:
                fds = self._answer_fd(fds)
            try:
                if fds:
                    socket.send_fds(client, [msg], fds)
                else:
                    client.sendall(msg)
            except OSError:
                break
            finally:
                for fd in fds:
                    os.close(fd)
        self._end(server, client)

    def close(self):
        self.closed = True
        self.listener.close()
        for s in self.socks:
            try:
                s.close()
            except OSError:
                pass
