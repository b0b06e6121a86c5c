"""Tool arguments as a contract: a name the tool does not take is refused, never ignored.

The SDK builds one pydantic model per tool from its signature and drops keys it does not
know, so ``list_gotchas(recrod=".claude/other.md")`` silently read the default record.
:func:`refuse_unknown` swaps each tool's model for one that rejects unknown names with
the known ones and the closest match, and publishes ``additionalProperties: false``.
"""

from __future__ import annotations

import difflib
from typing import Any

from pydantic import BaseModel, model_validator

from gotchas.errors import shown


def unknown_argument_message(tool: str, given: list[str], known: list[str]) -> str:
    """``invalid-argument: …`` naming the first unknown key, a close known one and all of them."""
    name = given[0]
    close = difflib.get_close_matches(name[:100], known, n=1, cutoff=0.6)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return (
        f"invalid-argument: {tool} takes no argument {shown(name, 40)}{hint} "
        f"Its arguments are: {', '.join(known) or 'none'}"
    )


def strict_model(tool: str, model: type[BaseModel]) -> type[BaseModel]:
    """A subclass of ``model`` that refuses keys it has no field (or alias) for."""
    known = sorted({info.alias or name for name, info in model.model_fields.items()})

    def check(cls: type[BaseModel], data: Any) -> Any:
        if isinstance(data, dict):
            extra = [key for key in data if key not in known]
            if extra:
                raise ValueError(unknown_argument_message(tool, [str(k) for k in extra], known))
        return data

    namespace = {"_known_only": model_validator(mode="before")(check)}
    return type(f"{model.__name__}Strict", (model,), namespace)


def refuse_unknown(tools: list[Any]) -> None:
    """Make every registered tool refuse unknown argument names (see the module docstring)."""
    for tool in tools:
        tool.fn_metadata.arg_model = strict_model(tool.name, tool.fn_metadata.arg_model)
        tool.parameters["additionalProperties"] = False
