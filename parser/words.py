"""Fixed word tables: a word -> the Workload value it names ("bf16", "s3" -> aws, "amazon" -> aws).

`_pick` returns the first table entry whose pattern the word matches. The cloud table is shared
by the `location`/`provider` rules and by `fold` ("corpus on AWS" is where the data lives).
"""

from __future__ import annotations

import re

_PRECISION = [
    ("bf16|bfloat16", "bf16"), ("fp16|float16|half", "fp16"), ("fp8|float8", "fp8"),
    ("int8|8 ?-?bit", "int8"), ("nf4", "nf4"), ("int4|4 ?-?bit|awq|gptq", "int4"), ("fp32|float32|full", "fp32"),
]
_STORE = [("s3", "aws"), ("gcs|google", "gcp"), ("blob|azure|adls", "azure"), ("prem|local|nas", "onprem")]
_CLOUD = [("aws|amazon", "aws"), ("gcp|google", "gcp"), ("azure", "azure")]


def _pick(text: str, table: list[tuple[str, str]]) -> str | None:
    return next((value for pattern, value in table if re.search(pattern, text)), None)


# what is done to each prompt of a job; documents a service retrieves from ("RAG over 1b documents") are not prompts
_JOB_VERB = re.compile(r"\b(?:run|runs|running|process|processing|classify|classifying|summari[sz]e|summari[sz]ing|label|"
                       r"labelling|labeling|tag|tagging|extract|extracting|translate|translating|score|scoring|annotate|"
                       r"annotating|caption|captioning|rewrite|moderate|analy[sz]e|analysis|batch|offline|describe|describing|ocr|"
                       r"transcribe|transcribing|digiti[sz]e|digiti[sz]ing)\b", re.IGNORECASE)
