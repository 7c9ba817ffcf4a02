"""The design of the seed write-up 002 (VaultCommerce single-table design) written and read
exactly as the write-up does, with boto3's Table resource (default serialization).

  python seed002.py write TABLE     writes the data set below (50 items)
  python seed002.py read TABLE UID  prints, as [type, value], what get_item of the profile and
                                    a query of the user's orders return

The data set (tests/tests/integration/interop.rs builds the same values):
* users 42, 43, 44: profile `USER#<uid>` / `PROFILE` with email `user<uid>@vault.test` and
  tier GOLD, SILVER, GOLD;
* orders: 25 for user 42, 6 for each other; order j has id `2026-<j, four digits>`. An even j
  has the write-up's first shape (`total`, `status`), an odd j the shape of its `put_item`
  (`GSI1PK = STATUS#<status>`, `GSI1SK = created_at`, `customerName`, `total`), with
  created_at `datetime(2026, 4, j % 28 + 1, 10, tzinfo=timezone.utc).isoformat()`; status PAID
  when j % 4 < 2, else SHIPPED; total `Decimal(f"{j + 100}.99")`;
* wish lists: `WISHLIST#SKU-884<k>` with addedAt `2026-04-0<k + 1>` for k = 0, 1;
* products SKU-8840..SKU-8843: `PRODUCT#<sku>` / `METADATA` with title `Product <k>` and
  price 89 + k.
"""
import json
import os
import sys
from datetime import datetime, timezone
from decimal import Decimal

import boto3


def table(name):
    resource = boto3.resource(
        "dynamodb",
        endpoint_url=os.environ["DYNAMODB_ENDPOINT"],
        region_name=os.environ.get("AWS_REGION", "us-east-1"),
        aws_access_key_id=os.environ.get("AWS_ACCESS_KEY_ID", "dynamoentitylocal"),
        aws_secret_access_key=os.environ.get("AWS_SECRET_ACCESS_KEY", "dynamoentitylocal"),
    )
    return resource.Table(name)


def write(t):
    for i, user_id in enumerate([42, 43, 44]):
        t.put_item(Item={"PK": f"USER#{user_id}", "SK": "PROFILE", "email": f"user{user_id}@vault.test",
                         "tier": ["GOLD", "SILVER", "GOLD"][i]})
        for j in range(25 if user_id == 42 else 6):
            order_id = f"2026-{j:04d}"
            status = "PAID" if j % 4 < 2 else "SHIPPED"
            total = Decimal(f"{j + 100}.99")
            if j % 2 == 0:
                t.put_item(Item={"PK": f"USER#{user_id}", "SK": f"ORDER#{order_id}", "total": total,
                                 "status": status})
            else:
                created_at = datetime(2026, 4, j % 28 + 1, 10, tzinfo=timezone.utc).isoformat()
                t.put_item(Item={
                    "PK": f"USER#{user_id}",
                    "SK": f"ORDER#{order_id}",
                    "GSI1PK": f"STATUS#{status}",
                    "GSI1SK": created_at,
                    "customerName": f"Customer {user_id}",
                    "total": total,
                })
        for k in range(2):
            t.put_item(Item={"PK": f"USER#{user_id}", "SK": f"WISHLIST#SKU-884{k}", "addedAt": f"2026-04-0{k + 1}"})
    for k in range(4):
        t.put_item(Item={"PK": f"PRODUCT#SKU-884{k}", "SK": "METADATA", "title": f"Product {k}", "price": 89 + k})


def describe(v):
    """A value as a Python reader sees it: [type name, value], keys sorted."""
    if isinstance(v, dict):
        return ["dict", {k: describe(v[k]) for k in sorted(v)}]
    if isinstance(v, (list, tuple)):
        return [type(v).__name__, [describe(x) for x in v]]
    if isinstance(v, set):
        return ["set", sorted(describe(x) for x in v)]
    if isinstance(v, Decimal):
        return ["Decimal", str(v)]
    if isinstance(v, (bytes, bytearray)) or type(v).__name__ == "Binary":
        return ["Binary", list(bytes(v.value if hasattr(v, "value") else v))]
    return [type(v).__name__, v]


def read(t, uid):
    from boto3.dynamodb.conditions import Key

    profile = t.get_item(Key={"PK": f"USER#{uid}", "SK": "PROFILE"}).get("Item")
    orders = t.query(KeyConditionExpression=Key("PK").eq(f"USER#{uid}") & Key("SK").begins_with("ORDER#"))["Items"]
    print(json.dumps(describe({"profile": profile, "orders": orders})))


if __name__ == "__main__":
    mode, name = sys.argv[1], sys.argv[2]
    if mode == "write":
        write(table(name))
    else:
        read(table(name), sys.argv[3])
