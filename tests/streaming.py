"""Reading streamed answers in tests (the test client's `.json()` needs `.content`)."""

import json


def streamed_json(response):
    """The JSON of a response, streamed (StreamingHttpResponse) or not."""
    if response.streaming:
        return json.loads(b"".join(response.streaming_content))
    return response.json()
