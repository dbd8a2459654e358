from cache import Cache


def test_false_and_zero_are_values_not_misses() -> None:
    cache = Cache()
    cache.set("flag", False)
    cache.set("count", 0)
    assert cache.get("flag", "miss") is False
    assert cache.get("count", "miss") == 0


def test_a_missing_key_is_a_miss() -> None:
    assert Cache().get("nothing", "miss") == "miss"
