#!/usr/bin/env python3
"""Soak of `oxello web`: thousands of mixed requests from concurrent clients, some stalled and
some hostile, while a game's review runs; every well-formed request must be answered with the
status it calls for, and the server's memory must stay flat.

    python3 scripts/soak_web.py [--oxello target/release/oxello] [--requests 3000] [--clients 20]

It starts the server on a free loopback port, starts a review of a 60-move game (0.5 s a
position, so it runs for about half a minute, and again whenever it ends), then runs the
clients, each drawing request kinds at random (seeded). It samples the server's resident memory
every half second and prints a summary; the exit status is 0 only if every well-formed request
got its expected status, the review went on to the end, and the server is still answering.
Only the loopback is used.
"""

import argparse
import json
import random
import socket
import subprocess
import sys
import threading
import time

# A 60-move game (WTHOR, 2020) for the review.
GAME = ("f5d6c5f4e3c6d3f6e6d7g3c4b4b3g5c3b5a5a4a3b6a6f7g6c2d2c1e1e7f2d1f3e2h3g4h4f1h5d8c7"
        "c8g7h6f8h2g2e8b8h7b7b2b1a1a2g1h1a7h8g8a8")


def http(address, data, read_timeout=30.0, pieces=None, pause=0.0):
    """Sends `data` (in `pieces` with `pause` between them if given) and returns the reply's
    status, or 0 if none came."""
    return exchange(address, data, read_timeout, pieces, pause)[0]


def exchange(address, data, read_timeout=30.0, pieces=None, pause=0.0):
    """The same, returning the status and the body."""
    host, port = address.split(":")
    with socket.create_connection((host, int(port)), timeout=read_timeout) as s:
        if pieces:
            step = len(data) // pieces + 1
            for i in range(0, len(data), step):
                s.sendall(data[i:i + step])
                time.sleep(pause)
        else:
            s.sendall(data)
        try:
            s.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        reply = b""
        while True:
            try:
                chunk = s.recv(65536)
            except (socket.timeout, ConnectionResetError):
                break
            if not chunk:
                break
            reply += chunk
    parts = reply.split(b" ", 2)
    body = reply.split(b"\r\n\r\n", 1)[1] if b"\r\n\r\n" in reply else b""
    try:
        return int(parts[1]), body
    except (IndexError, ValueError):
        return 0, body


def request(method, path, host, body=b"", content_type="application/json"):
    head = f"{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n"
    if body:
        head += f"Content-Type: {content_type}\r\n"
    head += f"Content-Length: {len(body)}\r\n\r\n"
    return head.encode() + body


def stalled(address, hold):
    """Sends a POST's headers and a little of its body, then waits; the server should answer
    408 at its deadline."""
    host, port = address.split(":")
    with socket.create_connection((host, int(port)), timeout=hold + 15) as s:
        s.sendall(("POST /api/position HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"
                   "Content-Length: 60000\r\n\r\n{\"setup\": \"" % address).encode())
        begun = time.time()
        try:
            reply = s.recv(100)
        except socket.timeout:
            return 0
        # Answered early would be wrong: the body has not come.
        return int(reply.split(b" ")[1]) if reply and time.time() - begun > 5 else -1


KINDS = [
    # (name, weight, well-formed, expected status)
    ("page", 10, True, 200),
    ("job", 20, True, 200),
    ("position", 20, True, 200),
    ("bad_json", 8, True, 400),
    ("illegal_move", 6, True, 400),
    ("foreign_host", 6, True, 403),
    ("wrong_type", 4, True, 415),
    ("not_found", 4, True, 404),
    ("too_long", 3, True, 413),
    ("slow_honest", 2, True, 200),
    ("garbage", 5, False, None),
    ("cut_short", 5, False, None),
    ("stalled", 2, False, 408),
]


def one(kind, address, rng):
    if kind == "page":
        return http(address, request("GET", "/", address))
    if kind == "job":
        return http(address, request("GET", "/api/job", address))
    if kind == "position":
        moves = [GAME[i:i + 2] for i in range(0, 2 * rng.randrange(0, 40), 2)]
        return http(address, request("POST", "/api/position", address,
                                     json.dumps({"moves": moves}).encode()))
    if kind == "bad_json":
        return http(address, request("POST", "/api/position", address, b"{not json"))
    if kind == "illegal_move":
        return http(address, request("POST", "/api/position", address, b'{"moves": ["a1"]}'))
    if kind == "foreign_host":
        return http(address, request("GET", "/", "attacker.example:80"))
    if kind == "wrong_type":
        return http(address, request("POST", "/api/position", address, b"{}", "text/plain"))
    if kind == "not_found":
        return http(address, request("GET", "/../Cargo.toml", address))
    if kind == "too_long":
        head = ("POST /api/position HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"
                "Content-Length: 100000000\r\n\r\n" % address)
        return http(address, head.encode())
    if kind == "slow_honest":
        return http(address, request("POST", "/api/position", address, b'{"moves": ["f5"]}'),
                    pieces=5, pause=0.3)
    if kind == "garbage":
        return http(address, bytes(rng.randrange(256) for _ in range(rng.randrange(1, 300))))
    if kind == "cut_short":
        data = request("POST", "/api/position", address, b'{"moves": ["f5", "d6"]}')
        return http(address, data[:rng.randrange(1, len(data))])
    if kind == "stalled":
        return stalled(address, hold=12)
    raise ValueError(kind)


def resident_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--oxello", default="target/release/oxello")
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    server = subprocess.Popen([args.oxello, "--threads", "1", "web", "--port", "0", "--hash", "64"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = server.stdout.readline()
    address = line.split("http://")[1].split("/")[0]
    print(f"server pid {server.pid} at {address}", flush=True)

    def start_review():
        body = json.dumps({"moves": [GAME[i:i + 2] for i in range(0, len(GAME), 2)],
                           "time_ms": 500}).encode()
        reply = http(address, request("POST", "/api/review", address, body))
        if reply != 200:
            raise SystemExit(f"the review was refused: {reply}")

    start_review()
    memory = []
    done = threading.Event()
    reviews = {"ended": 0, "faults": []}

    def sample():
        while not done.is_set():
            memory.append((time.time(), resident_kib(server.pid)))
            try:
                status, body = exchange(address, request("GET", "/api/job", address))
                if status == 200:
                    job = json.loads(body)
                    if job["kind"] == "review" and job["state"] != "running":
                        if job["state"] != "done":
                            reviews["faults"].append(job["state"])
                        reviews["ended"] += 1
                        start_review()
            except (OSError, ValueError, KeyError, IndexError):
                pass
            time.sleep(0.5)

    sampler = threading.Thread(target=sample)
    sampler.start()

    counts = {}
    failures = []
    lock = threading.Lock()
    per_client = args.requests // args.clients
    weights = [k[1] for k in KINDS]

    def client(number):
        rng = random.Random(args.seed * 1000 + number)
        for _ in range(per_client):
            name, _, well_formed, expected = rng.choices(KINDS, weights)[0]
            try:
                status = one(name, address, rng)
            except OSError as e:
                status = f"error {e}"
            with lock:
                counts[name] = counts.get(name, 0) + 1
                if well_formed and status != expected:
                    failures.append((name, expected, status))
                if name == "stalled" and status != expected:
                    failures.append((name, expected, status))

    begun = time.time()
    clients = [threading.Thread(target=client, args=(i,)) for i in range(args.clients)]
    for c in clients:
        c.start()
    for c in clients:
        c.join()
    elapsed = time.time() - begun
    still = http(address, request("GET", "/", address))
    done.set()
    sampler.join()
    server.kill()
    server.wait()

    total = sum(counts.values())
    print(f"{total} requests from {args.clients} clients in {elapsed:.0f} s: "
          + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    print(f"reviews ended while the clients ran: {reviews['ended']}, "
          f"not done: {reviews['faults']}")
    if memory:
        third = len(memory) // 3
        print("resident memory (MiB): start %.1f, a third in %.1f, two thirds %.1f, end %.1f, "
              "most %.1f" % tuple(x / 1024 for x in (memory[0][1], memory[third][1],
                                                      memory[2 * third][1], memory[-1][1],
                                                      max(m for _, m in memory))))
    print(f"still answering at the end: {still == 200}")
    print(f"well-formed requests not answered as expected: {len(failures)}")
    for failure in failures[:20]:
        print("  ", failure)
    sys.exit(0 if not failures and not reviews["faults"] and still == 200 else 1)


if __name__ == "__main__":
    main()
