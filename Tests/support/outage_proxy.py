#!/usr/bin/env python3
"""A TCP forwarder whose far side can be taken away: the database "stops" for the server that
connects through it. Prints "ready PORT" once listening on 127.0.0.1:PORT; then reads commands on
standard input, one a line: "down" closes every forwarded connection and refuses new ones (the
listening socket closes, so a connect is refused as from a stopped server), "up" listens again on
the same port. Ends when standard input closes. usage: outage_proxy.py TARGET_HOST TARGET_PORT"""
import asyncio
import sys


async def main(target_host, target_port):
    connections = set()
    server = None
    port = 0

    async def pipe(reader, writer):
        try:
            while True:
                data = await reader.read(65536)
                if not data:
                    break
                writer.write(data)
                await writer.drain()
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    async def forward(client_reader, client_writer):
        try:
            server_reader, server_writer = await asyncio.open_connection(target_host, target_port)
        except OSError:
            client_writer.close()
            return
        tasks = (asyncio.ensure_future(pipe(client_reader, server_writer)),
                 asyncio.ensure_future(pipe(server_reader, client_writer)))
        pair = (client_writer, server_writer, tasks)
        connections.add(pair)
        await asyncio.wait(tasks)
        connections.discard(pair)

    async def listen():
        nonlocal server, port
        server = await asyncio.start_server(forward, "127.0.0.1", port, reuse_address=True)
        port = server.sockets[0].getsockname()[1]

    await listen()
    print(f"ready {port}", flush=True)
    loop = asyncio.get_running_loop()
    while True:
        line = await loop.run_in_executor(None, sys.stdin.readline)
        if not line:
            break
        command = line.strip()
        if command == "down" and server is not None:
            server.close()
            await server.wait_closed()
            server = None
            for client_writer, server_writer, tasks in list(connections):
                for task in tasks:
                    task.cancel()
                client_writer.transport.abort()
                server_writer.transport.abort()
            connections.clear()
            print("down", flush=True)
        elif command == "up" and server is None:
            await listen()
            print("up", flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2])))
