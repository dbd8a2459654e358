"""``/metrics``: one replica's counters in the Prometheus text format
(requests by route and status, a latency histogram, errors, the database
pool). Each replica counts its own requests; Prometheus sums the replicas."""

from __future__ import annotations

import threading

__all__ = ["Metrics", "BUCKETS"]

#: latency histogram buckets, seconds
BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


def _label(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


class Metrics:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._requests: dict[tuple[str, str, int], int] = {}
        self._buckets = [0] * len(BUCKETS)
        self._count = 0
        self._sum = 0.0
        self._errors = 0

    def observe(self, method: str, route: str, status: int, seconds: float) -> None:
        with self._lock:
            key = (method, route, status)
            self._requests[key] = self._requests.get(key, 0) + 1
            self._count += 1
            self._sum += seconds
            for number, bound in enumerate(BUCKETS):
                if seconds <= bound:
                    self._buckets[number] += 1

    def error(self) -> None:
        with self._lock:
            self._errors += 1

    def render(self, pool_idle: int) -> str:
        with self._lock:
            lines = [
                "# HELP mem_http_requests_total Requests answered, by method, route and status.",
                "# TYPE mem_http_requests_total counter",
            ]
            for (method, route, status), count in sorted(self._requests.items()):
                lines.append(
                    f'mem_http_requests_total{{method="{method}",route="{_label(route)}",status="{status}"}} {count}'
                )
            lines += [
                "# HELP mem_http_request_duration_seconds Time to answer a request.",
                "# TYPE mem_http_request_duration_seconds histogram",
            ]
            for bound, count in zip(BUCKETS, self._buckets, strict=True):
                lines.append(f'mem_http_request_duration_seconds_bucket{{le="{bound}"}} {count}')
            lines += [
                f'mem_http_request_duration_seconds_bucket{{le="+Inf"}} {self._count}',
                f"mem_http_request_duration_seconds_sum {self._sum:.6f}",
                f"mem_http_request_duration_seconds_count {self._count}",
                "# HELP mem_http_errors_total Requests that failed inside the server (500).",
                "# TYPE mem_http_errors_total counter",
                f"mem_http_errors_total {self._errors}",
                "# HELP mem_db_pool_idle_connections Idle database connections kept for reuse.",
                "# TYPE mem_db_pool_idle_connections gauge",
                f"mem_db_pool_idle_connections {pool_idle}",
            ]
        return "\n".join(lines) + "\n"
