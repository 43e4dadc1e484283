"""The recorder behind `manage.py record_api_examples`: one real exchange per operation.

On a database holding the demo data (seed_demo), `Recorder.run()` reads the four OpenAPI
descriptions as they are served, then calls every operation through Django's test client:

- in an order that lets one call feed the next: creations first (so that lists list something),
  then reads of lists and of one resource, updates, actions, and deletions last (the deepest
  paths first), so that an update or a deletion meets what this run created rather than the
  demo's rows;
- as the caller the operation is for: the reseller's bearer token on the portal, the store
  administrator's application password on the REST namespaces, a guest with a cart cookie on
  the cart and checkout, the demo customer on /account;
- with path parameters taken from what this run created, else from the collection's list;
- with outbound calls (a webhook's test ping) answered by a stand-in (`stand_in_network`);
- with a body made from the resource itself where one exists (an update sends the resource's
  own values; a creation copies a listed one, with new names), else from the request schema,
  each field with a value fit for its name and type; `recipes` gives the body, parameters or
  caller where that is not enough.

It keeps the request body, the success answer and one error answer: an invalid body for an
operation that takes one, else an unknown id, else no credentials, else a malformed query
string; the first that answers a documented 4xx. An operation whose success cannot be reached
is reported, not recorded.

One module per part:

- `operations`: an operation, a recipe, a call and its answer, the run's phases
- `values`: values made up for a field or picked from an answer; a recorded value cut down and
  rid of the machine it was recorded on
- `session`: the callers, the descriptions, sending a call, what recipes call on the recorder
- `planning`: an operation's path parameters, body and error calls
- `run`: the `Recorder` and its run; the stand-in for the outside world

The names are re-exported here (`common.api.examples.recorder.Recorder`); the modules of this
package never import from it.
"""

from common.api.examples.recorder.operations import (
    ACTION,
    CREATE,
    DELETE,
    FIRST,
    LAST,
    LIST,
    METHODS,
    MULTIPART,
    READ,
    UNKNOWN_ID,
    UNSET,
    UPDATE,
    Answer,
    Call,
    Operation,
    Recipe,
    RecordingError,
)
from common.api.examples.recorder.planning import Planner
from common.api.examples.recorder.run import (
    STAND_IN_ADDRESS,
    STAND_IN_ANSWER,
    Recorder,
    stand_in_network,
)
from common.api.examples.recorder.session import Session
from common.api.examples.recorder.values import (
    EXAMPLE_HOST,
    MAX_ITEMS,
    MAX_STRING,
    MAX_TEXT,
    first_item,
    is_id_key,
    iso_now,
    patch_subset,
    pick,
    shortened,
    shortened_strings,
    singular,
    string_for,
    today,
    without_local_machine,
    wrong_value,
)

__all__ = [
    "ACTION",
    "CREATE",
    "DELETE",
    "EXAMPLE_HOST",
    "FIRST",
    "LAST",
    "LIST",
    "MAX_ITEMS",
    "MAX_STRING",
    "MAX_TEXT",
    "METHODS",
    "MULTIPART",
    "READ",
    "STAND_IN_ADDRESS",
    "STAND_IN_ANSWER",
    "UNKNOWN_ID",
    "UNSET",
    "UPDATE",
    "Answer",
    "Call",
    "Operation",
    "Planner",
    "Recipe",
    "Recorder",
    "RecordingError",
    "Session",
    "first_item",
    "is_id_key",
    "iso_now",
    "patch_subset",
    "pick",
    "shortened",
    "shortened_strings",
    "singular",
    "stand_in_network",
    "string_for",
    "today",
    "without_local_machine",
    "wrong_value",
]
