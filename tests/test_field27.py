"""Findings of session 27's fresh-user trial and break-it pass that are about single files
(their exact right values): documentation comments."""

from __future__ import annotations

from hindsight.codeindex.worker import parse_bytes

JS = b"""/**
 * Adjacent doc.
 */
function a() {}

/**
 * Send a response.
 *
 * @param {string|number|boolean|object|Buffer} body
 * @public
 */

res.send = function send(body) {};

// a plain comment, then a blank line

function c() {}

/** two blank lines */


function d() {}
"""


def test_a_jsdoc_block_one_blank_line_above_is_the_doc() -> None:
    """express writes every API function's JSDoc one blank line above it (a fresh-user
    trial found ``doc`` empty for all of them); a plain comment or a block two blank
    lines up is no doc."""
    docs = {s.local: s.doc for s in parse_bytes("x.js", "javascript", JS).symbols}
    assert docs == {"a": "Adjacent doc.", "res.send": (
        "Send a response.\n@param {string|number|boolean|object|Buffer} body\n@public"),
        "c": "", "d": ""}
