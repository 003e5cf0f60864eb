"""The base of the trainers' settings: validated, frozen, and written into the model's metadata."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class TrainingSettings(BaseModel):
    """Hyper-parameters a model is trained and decoded with; an unknown name is an error."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    def replaced(self, **changes: object) -> TrainingSettings:
        """A copy with ``changes`` applied, validated like the original."""
        return type(self).model_validate({**self.model_dump(), **changes})

    def as_dict(self) -> dict:
        """The settings as plain data, as the model's metadata and card record them."""
        return self.model_dump()
