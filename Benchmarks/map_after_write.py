"""The LookForRealBurger app's whole map, each read the first after a write: a mark set or cleared
on one shop through the app's own route, then the map read (what the app waits for after someone's
review or mark). Prints the median of seven reads, in ms.

    python3 Benchmarks/map_after_write.py URL KEY TOKEN SHOP_POST_ID MAP_PATH
"""
import json
import statistics
import sys
import time
import urllib.request

url, key, token, shop, map_path = sys.argv[1:]
headers = {"SesacKey": key, "Authorization": token}
times = []
for i in range(7):
    mark = urllib.request.Request(f"{url}/v1/posts/{shop}/like", method="POST", headers={**headers, "Content-Type": "application/json"},
                                  data=json.dumps({"like_status": i % 2 == 0}).encode())
    urllib.request.urlopen(mark).read()
    started = time.perf_counter()
    urllib.request.urlopen(urllib.request.Request(url + map_path, headers=headers)).read()
    times.append((time.perf_counter() - started) * 1000)
print(f"{statistics.median(times):.1f}")
