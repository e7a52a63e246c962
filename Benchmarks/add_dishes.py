"""Adds N dishes to a running server through the admin API, spread over the three sections.

    python3 add_dishes.py http://127.0.0.1:8080 ACCESS_TOKEN 10000
"""
import concurrent.futures
import json
import sys
import urllib.request

base, token, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
sections = ["main", "soup", "side"]


def add(index):
    body = {
        "hash": f"BX{index:06d}", "section": sections[index % 3], "title": f"[부하시험] 반찬 {index}",
        "description": "부하 시험용 반찬", "salePrice": 3_000 + (index % 50) * 100,
        "originalPrice": 9_900 if index % 4 == 0 else 0, "stock": 100,
    }
    request = urllib.request.Request(f"{base}/api/v1/banchan/dishes", data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.status


with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
    statuses = list(pool.map(add, range(count)))
assert all(status == 201 for status in statuses), set(statuses)
print(f"added {count} dishes", file=sys.stderr)
