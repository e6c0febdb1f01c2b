"""A TCP relay on a free loopback port in front of a server, for tests that must see what
passes between a peer and floe: each connection is piped both ways byte for byte, and each
chunk is shown first to the watchers the subclass gives that connection."""

from __future__ import annotations

import socket
import threading


class TcpRelay:
    def __init__(self, upstream_port: int):
        self.upstream_port = upstream_port
        self.lock = threading.Lock()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def watchers(self):
        """For one new connection: (sees each chunk the client sends, sees each chunk the
        server sends), each a callable taking bytes. One that raises is not called again on
        that connection; the bytes pass on regardless."""
        return (lambda data: None), (lambda data: None)

    def close(self):
        self.listener.close()

    def _accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return  # closed
            threading.Thread(target=self._connection, args=(client,), daemon=True).start()

    def _connection(self, client):
        to_server, to_client = self.watchers()
        with client, socket.create_connection(("127.0.0.1", self.upstream_port)) as server:
            back = threading.Thread(target=self._pump, args=(server, client, to_client))
            back.start()
            self._pump(client, server, to_server)
            back.join()

    @staticmethod
    def _pump(src, dst, watch):
        try:
            while data := src.recv(65536):
                if watch is not None:
                    try:
                        watch(data)  # before passing it on: a request is seen before its answer
                    except Exception:  # not what the watcher follows: relay on without it
                        watch = None
                dst.sendall(data)
            dst.shutdown(socket.SHUT_WR)  # pass the end of this direction on
        except OSError:
            # A reset: end both directions, so the other pump does not wait forever.
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
