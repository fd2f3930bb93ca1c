# Generated from generator/matrix.schema.json by scripts/schema_code.py, with fastjsonschema; do not
# edit by hand: after editing the schema, run `python scripts/schema_code.py`. generator/pipeline/schema.py
# runs it, and asks jsonschema where it refuses a matrix.
VERSION = "2.22.3"
from decimal import Decimal
import re


class JsonSchemaValueException(ValueError):
    """The document breaks the schema (fastjsonschema's exception of that name, without it)."""

    def __init__(self, message, value=None, name=None, definition=None, rule=None):
        super().__init__(message)
        self.message = message
        self.value = value
        self.name = name
        self.definition = definition
        self.rule = rule


# named in the code's `except` clauses; raised only where fastjsonschema collects every error,
# which this module does not (it stops at the first)
JsonSchemaValuesException = JsonSchemaValueException


class _Patterns(dict):
    """The schema's patterns by their text, each compiled the first time the code uses it: a
    matrix meets a few of them (compiling every one would take longer than checking the matrix)."""

    def __init__(self, sources):
        super().__init__()
        self._sources = sources

    def __missing__(self, pattern):
        compiled = self[pattern] = re.compile(self._sources[pattern])
        return compiled


REGEX_PATTERNS = _Patterns({
    '^[0-9]+\\.[0-9]+\\.[0-9]+((a|b|rc)[0-9]+)?$': '^[0-9]+\\.[0-9]+\\.[0-9]+((a|b|rc)[0-9]+)?\\Z',
    '^[A-Za-z0-9._/+-]+$': '^[A-Za-z0-9._/+-]+\\Z',
    '^[A-Za-z0-9_.-]+$': '^[A-Za-z0-9_.-]+\\Z',
    '^[0-9a-f]{40}$': '^[0-9a-f]{40}\\Z',
    '^(sha256-[A-Za-z0-9+/]{43}=|[0-9a-z]{52})$': '^(sha256-[A-Za-z0-9+/]{43}=|[0-9a-z]{52})\\Z',
    '^[A-Za-z_][A-Za-z0-9_-]*$': '^[A-Za-z_][A-Za-z0-9_-]*\\Z',
    '^https?://\\S+$': '^https?://\\S+\\Z',
    '^[a-z0-9][a-z0-9_-]*$': '^[a-z0-9][a-z0-9_-]*\\Z',
    '^[0-9]+\\.[0-9]+$': '^[0-9]+\\.[0-9]+\\Z',
    '^[0-9]+$': '^[0-9]+\\Z',
    '^(?![Gg][Ii][Tt][Hh][Uu][Bb]_)[A-Za-z_][A-Za-z0-9_]*$': '^(?![Gg][Ii][Tt][Hh][Uu][Bb]_)[A-Za-z_][A-Za-z0-9_]*\\Z',
    '^[A-Za-z0-9][A-Za-z0-9_-]*$': '^[A-Za-z0-9][A-Za-z0-9_-]*\\Z',
    '^[A-Za-z0-9][A-Za-z0-9._/+@-]*$': '^[A-Za-z0-9][A-Za-z0-9._/+@-]*\\Z',
    '^(?:(?:github|gitlab|sourcehut):[A-Za-z0-9_.~-]+/[A-Za-z0-9_.-]+/[0-9a-f]{40}|git\\+https://[A-Za-z0-9.-]+(?::[0-9]+)?(?:/[A-Za-z0-9_.~-]+)+\\?(?:ref=[A-Za-z0-9_./-]+&)?rev=[0-9a-f]{40})$': '^(?:(?:github|gitlab|sourcehut):[A-Za-z0-9_.~-]+/[A-Za-z0-9_.-]+/[0-9a-f]{40}|git\\+https://[A-Za-z0-9.-]+(?::[0-9]+)?(?:/[A-Za-z0-9_.~-]+)+\\?(?:ref=[A-Za-z0-9_./-]+&)?rev=[0-9a-f]{40})\\Z',
    '^(https?|s3)://\\S+$': '^(https?|s3)://\\S+\\Z',
    '^\\S+:\\S+$': '^\\S+:\\S+\\Z',
    '^[A-Za-z0-9][A-Za-z0-9._:/?&=+-]*$': '^[A-Za-z0-9][A-Za-z0-9._:/?&=+-]*\\Z',
    '^https://[A-Za-z0-9.-]+(:[0-9]+)?(/[A-Za-z0-9._~/-]*)?$': '^https://[A-Za-z0-9.-]+(:[0-9]+)?(/[A-Za-z0-9._~/-]*)?\\Z',
    '^[A-Za-z0-9._-]+:[A-Za-z0-9+/]{43}=$': '^[A-Za-z0-9._-]+:[A-Za-z0-9+/]{43}=\\Z',
    '^ssh(-ng)?://([A-Za-z0-9._-]+@)?[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$': '^ssh(-ng)?://([A-Za-z0-9._-]+@)?[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?\\Z',
    '^[A-Za-z0-9][A-Za-z0-9._-]*$': '^[A-Za-z0-9][A-Za-z0-9._-]*\\Z',
    '^gfx[0-9a-f]+$': '^gfx[0-9a-f]+\\Z',
    '^[0-9]+\\.[0-9]+(\\.[0-9]+)?$': '^[0-9]+\\.[0-9]+(\\.[0-9]+)?\\Z',
    '^(gfx[0-9a-f]+(;gfx[0-9a-f]+)*)?$': '^(gfx[0-9a-f]+(;gfx[0-9a-f]+)*)?\\Z',
    '^([a-z0-9-]+(,[a-z0-9-]+)*)?$': '^([a-z0-9-]+(,[a-z0-9-]+)*)?\\Z',
    '^[0-9]+\\.[0-9]+(\\.[0-9]+)*$': '^[0-9]+\\.[0-9]+(\\.[0-9]+)*\\Z',
    '^cudaPackages(_[0-9]+)?$': '^cudaPackages(_[0-9]+)?\\Z',
    '^[0-9]+\\.[0-9]+\\.[0-9]+$': '^[0-9]+\\.[0-9]+\\.[0-9]+\\Z',
    '^[A-Z][A-Z0-9_]*$': '^[A-Z][A-Z0-9_]*\\Z',
    '^[A-Za-z0-9_.-]+([<>=!~]=?[0-9A-Za-z.*]+)?(,[<>=!~]=?[0-9A-Za-z.*]+)*$': '^[A-Za-z0-9_.-]+([<>=!~]=?[0-9A-Za-z.*]+)?(,[<>=!~]=?[0-9A-Za-z.*]+)*\\Z',
    '^[^\\r\\n]*$': '^[^\\r\\n]*\\Z',
    '^[A-Z_][A-Z0-9_]*$': '^[A-Z_][A-Z0-9_]*\\Z',
    '^>=[0-9]+$': '^>=[0-9]+\\Z',
    '^\\s*(>=|<=|==|!=|<|>)\\s*[0-9]+(\\.[0-9]+)*\\s*(,\\s*(>=|<=|==|!=|<|>)\\s*[0-9]+(\\.[0-9]+)*\\s*)*$': '^\\s*(>=|<=|==|!=|<|>)\\s*[0-9]+(\\.[0-9]+)*\\s*(,\\s*(>=|<=|==|!=|<|>)\\s*[0-9]+(\\.[0-9]+)*\\s*)*\\Z',
    '^[0-9]+\\.[0-9]+[af]?(\\+PTX)?(;[0-9]+\\.[0-9]+[af]?(\\+PTX)?)*$': '^[0-9]+\\.[0-9]+[af]?(\\+PTX)?(;[0-9]+\\.[0-9]+[af]?(\\+PTX)?)*\\Z',
    '^[0-9]+\\.[0-9]+[af]?(;[0-9]+\\.[0-9]+[af]?)*$': '^[0-9]+\\.[0-9]+[af]?(;[0-9]+\\.[0-9]+[af]?)*\\Z',
    '^[A-Za-z0-9_]+$': '^[A-Za-z0-9_]+\\Z',
    '^-[A-Za-z0-9=.+,_-]+$': '^-[A-Za-z0-9=.+,_-]+\\Z',
    '^([/-][A-Za-z0-9:=.+,_-]+( [/-][A-Za-z0-9:=.+,_-]+)*)?$': '^([/-][A-Za-z0-9:=.+,_-]+( [/-][A-Za-z0-9:=.+,_-]+)*)?\\Z',
    '^[a-z0-9_]+$': '^[a-z0-9_]+\\Z',
    '^[A-Z0-9_]+$': '^[A-Z0-9_]+\\Z',
    '^[0-9]+(\\.[0-9]+)*$': '^[0-9]+(\\.[0-9]+)*\\Z',
    '^([0-9]+(\\.[0-9]+)*)?$': '^([0-9]+(\\.[0-9]+)*)?\\Z',
    '^sha256-[A-Za-z0-9+/]{43}=$': '^sha256-[A-Za-z0-9+/]{43}=\\Z',
})

NoneType = type(None)

def validate(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data__missing_keys = set(['pytorch', 'nixpkgs']) - data.keys()
        if data__missing_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain ")
        data_keys = set(data.keys())
        if "pytorch" in data_keys:
            data_keys.remove("pytorch")
            data__pytorch = data["pytorch"]
            if not isinstance(data__pytorch, (dict)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".pytorch must be object")
            data__pytorch_is_dict = isinstance(data__pytorch, dict)
            if data__pytorch_is_dict:
                data__pytorch__missing_keys = set(['version']) - data__pytorch.keys()
                if data__pytorch__missing_keys:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".pytorch must contain ")
                data__pytorch_keys = set(data__pytorch.keys())
                if "version" in data__pytorch_keys:
                    data__pytorch_keys.remove("version")
                    data__pytorch__version = data__pytorch["version"]
                    if not isinstance(data__pytorch__version, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".pytorch.version must be string")
                    if isinstance(data__pytorch__version, str):
                        if not REGEX_PATTERNS['^[0-9]+\\.[0-9]+\\.[0-9]+((a|b|rc)[0-9]+)?$'].search(data__pytorch__version):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".pytorch.version must match pattern ^[0-9]+\\.[0-9]+\\.[0-9]+((a|b|rc)[0-9]+)?$")
                if "source" in data__pytorch_keys:
                    data__pytorch_keys.remove("source")
                    data__pytorch__source = data__pytorch["source"]
                    if not isinstance(data__pytorch__source, (dict)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".pytorch.source must be object")
                    data__pytorch__source_is_dict = isinstance(data__pytorch__source, dict)
                    if data__pytorch__source_is_dict:
                        data__pytorch__source__missing_keys = set(['rev', 'hash']) - data__pytorch__source.keys()
                        if data__pytorch__source__missing_keys:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".pytorch.source must contain ")
                        data__pytorch__source_keys = set(data__pytorch__source.keys())
                        if "rev" in data__pytorch__source_keys:
                            data__pytorch__source_keys.remove("rev")
                            data__pytorch__source__rev = data__pytorch__source["rev"]
                            if not isinstance(data__pytorch__source__rev, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".pytorch.source.rev must be string")
                            if isinstance(data__pytorch__source__rev, str):
                                if not REGEX_PATTERNS['^[A-Za-z0-9._/+-]+$'].search(data__pytorch__source__rev):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".pytorch.source.rev must match pattern ^[A-Za-z0-9._/+-]+$")
                        if "hash" in data__pytorch__source_keys:
                            data__pytorch__source_keys.remove("hash")
                            data__pytorch__source__hash = data__pytorch__source["hash"]
                            validate____defs_srihash(data__pytorch__source__hash, custom_formats, (name_prefix or "data") + ".pytorch.source.hash")
                        if "owner" in data__pytorch__source_keys:
                            data__pytorch__source_keys.remove("owner")
                            data__pytorch__source__owner = data__pytorch__source["owner"]
                            if not isinstance(data__pytorch__source__owner, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".pytorch.source.owner must be string")
                            if isinstance(data__pytorch__source__owner, str):
                                if not REGEX_PATTERNS['^[A-Za-z0-9_.-]+$'].search(data__pytorch__source__owner):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".pytorch.source.owner must match pattern ^[A-Za-z0-9_.-]+$")
                        if "repo" in data__pytorch__source_keys:
                            data__pytorch__source_keys.remove("repo")
                            data__pytorch__source__repo = data__pytorch__source["repo"]
                            if not isinstance(data__pytorch__source__repo, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".pytorch.source.repo must be string")
                            if isinstance(data__pytorch__source__repo, str):
                                if not REGEX_PATTERNS['^[A-Za-z0-9_.-]+$'].search(data__pytorch__source__repo):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".pytorch.source.repo must match pattern ^[A-Za-z0-9_.-]+$")
                        if data__pytorch__source_keys:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".pytorch.source must not contain "+str(data__pytorch__source_keys)+" properties")
                if data__pytorch_keys:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".pytorch must not contain "+str(data__pytorch_keys)+" properties")
        if "nixpkgs" in data_keys:
            data_keys.remove("nixpkgs")
            data__nixpkgs = data["nixpkgs"]
            if not isinstance(data__nixpkgs, (dict)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".nixpkgs must be object")
            data__nixpkgs_one_of_count1 = 0
            if data__nixpkgs_one_of_count1 < 2:
                try:
                    try:
                        data__nixpkgs_is_dict = isinstance(data__nixpkgs, dict)
                        if data__nixpkgs_is_dict:
                            data__nixpkgs__missing_keys = set(['pins']) - data__nixpkgs.keys()
                            if data__nixpkgs__missing_keys:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".nixpkgs must contain ")
                    except (JsonSchemaValueException, JsonSchemaValuesException): pass
                    else:
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".nixpkgs must NOT match a disallowed definition")
                    data__nixpkgs_is_dict = isinstance(data__nixpkgs, dict)
                    if data__nixpkgs_is_dict:
                        data__nixpkgs__missing_keys = set(['rev']) - data__nixpkgs.keys()
                        if data__nixpkgs__missing_keys:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".nixpkgs must contain ")
                    data__nixpkgs_one_of_count1 += 1
                except (JsonSchemaValueException, JsonSchemaValuesException): pass
            if data__nixpkgs_one_of_count1 < 2:
                try:
                    try:
                        data__nixpkgs_any_of_count2 = 0
                        if not data__nixpkgs_any_of_count2:
                            try:
                                data__nixpkgs_is_dict = isinstance(data__nixpkgs, dict)
                                if data__nixpkgs_is_dict:
                                    data__nixpkgs__missing_keys = set(['rev']) - data__nixpkgs.keys()
                                    if data__nixpkgs__missing_keys:
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".nixpkgs must contain ")
                                data__nixpkgs_any_of_count2 += 1
                            except (JsonSchemaValueException, JsonSchemaValuesException): pass
                        if not data__nixpkgs_any_of_count2:
                            try:
                                data__nixpkgs_is_dict = isinstance(data__nixpkgs, dict)
                                if data__nixpkgs_is_dict:
                                    data__nixpkgs__missing_keys = set(['sha256']) - data__nixpkgs.keys()
                                    if data__nixpkgs__missing_keys:
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".nixpkgs must contain ")
                                data__nixpkgs_any_of_count2 += 1
                            except (JsonSchemaValueException, JsonSchemaValuesException): pass
                        if not data__nixpkgs_any_of_count2:
                            try:
                                data__nixpkgs_is_dict = isinstance(data__nixpkgs, dict)
                                if data__nixpkgs_is_dict:
                                    data__nixpkgs__missing_keys = set(['config']) - data__nixpkgs.keys()
                                    if data__nixpkgs__missing_keys:
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".nixpkgs must contain ")
                                data__nixpkgs_any_of_count2 += 1
                            except (JsonSchemaValueException, JsonSchemaValuesException): pass
                        if not data__nixpkgs_any_of_count2:
                            try:
                                data__nixpkgs_is_dict = isinstance(data__nixpkgs, dict)
                                if data__nixpkgs_is_dict:
                                    data__nixpkgs__missing_keys = set(['patches']) - data__nixpkgs.keys()
                                    if data__nixpkgs__missing_keys:
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".nixpkgs must contain ")
                                data__nixpkgs_any_of_count2 += 1
                            except (JsonSchemaValueException, JsonSchemaValuesException): pass
                        if not data__nixpkgs_any_of_count2:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".nixpkgs cannot be validated by any definition")
                    except (JsonSchemaValueException, JsonSchemaValuesException): pass
                    else:
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".nixpkgs must NOT match a disallowed definition")
                    data__nixpkgs_is_dict = isinstance(data__nixpkgs, dict)
                    if data__nixpkgs_is_dict:
                        data__nixpkgs__missing_keys = set(['pins']) - data__nixpkgs.keys()
                        if data__nixpkgs__missing_keys:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".nixpkgs must contain ")
                    data__nixpkgs_one_of_count1 += 1
                except (JsonSchemaValueException, JsonSchemaValuesException): pass
            if data__nixpkgs_one_of_count1 != 1:
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".nixpkgs must be valid exactly by one definition")
            data__nixpkgs_is_dict = isinstance(data__nixpkgs, dict)
            if data__nixpkgs_is_dict:
                data__nixpkgs_keys = set(data__nixpkgs.keys())
                if "rev" in data__nixpkgs_keys:
                    data__nixpkgs_keys.remove("rev")
                    data__nixpkgs__rev = data__nixpkgs["rev"]
                    if not isinstance(data__nixpkgs__rev, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".nixpkgs.rev must be string")
                    if isinstance(data__nixpkgs__rev, str):
                        if not REGEX_PATTERNS['^[0-9a-f]{40}$'].search(data__nixpkgs__rev):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".nixpkgs.rev must match pattern ^[0-9a-f]{40}$")
                if "sha256" in data__nixpkgs_keys:
                    data__nixpkgs_keys.remove("sha256")
                    data__nixpkgs__sha256 = data__nixpkgs["sha256"]
                    data__nixpkgs__sha256_one_of_count3 = 0
                    if data__nixpkgs__sha256_one_of_count3 < 2:
                        try:
                            if not isinstance(data__nixpkgs__sha256, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".nixpkgs.sha256 must be string")
                            if isinstance(data__nixpkgs__sha256, str):
                                if not REGEX_PATTERNS['^(sha256-[A-Za-z0-9+/]{43}=|[0-9a-z]{52})$'].search(data__nixpkgs__sha256):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".nixpkgs.sha256 must match pattern ^(sha256-[A-Za-z0-9+/]{43}=|[0-9a-z]{52})$")
                            data__nixpkgs__sha256_one_of_count3 += 1
                        except (JsonSchemaValueException, JsonSchemaValuesException): pass
                    if data__nixpkgs__sha256_one_of_count3 < 2:
                        try:
                            if not isinstance(data__nixpkgs__sha256, (NoneType)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".nixpkgs.sha256 must be null")
                            data__nixpkgs__sha256_one_of_count3 += 1
                        except (JsonSchemaValueException, JsonSchemaValuesException): pass
                    if data__nixpkgs__sha256_one_of_count3 != 1:
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".nixpkgs.sha256 must be valid exactly by one definition")
                if "capability_scope" in data__nixpkgs_keys:
                    data__nixpkgs_keys.remove("capability_scope")
                    data__nixpkgs__capabilityscope = data__nixpkgs["capability_scope"]
                    if not (isinstance(data__nixpkgs__capabilityscope, str) and data__nixpkgs__capabilityscope == 'auto' or isinstance(data__nixpkgs__capabilityscope, str) and data__nixpkgs__capabilityscope == 'torch' or isinstance(data__nixpkgs__capabilityscope, str) and data__nixpkgs__capabilityscope == 'nixpkgs'):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".nixpkgs.capability_scope must be one of ['auto', 'torch', 'nixpkgs']")
                if "config" in data__nixpkgs_keys:
                    data__nixpkgs_keys.remove("config")
                    data__nixpkgs__config = data__nixpkgs["config"]
                    if not isinstance(data__nixpkgs__config, (dict)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".nixpkgs.config must be object")
                    data__nixpkgs__config_is_dict = isinstance(data__nixpkgs__config, dict)
                    if data__nixpkgs__config_is_dict:
                        data__nixpkgs__config_keys = set(data__nixpkgs__config.keys())
                        for data__nixpkgs__config_key in data__nixpkgs__config_keys:
                            if data__nixpkgs__config_key not in []:
                                data__nixpkgs__config_value = data__nixpkgs__config.get(data__nixpkgs__config_key)
                                data__nixpkgs__config_value_one_of_count4 = 0
                                if data__nixpkgs__config_value_one_of_count4 < 2:
                                    try:
                                        if not isinstance(data__nixpkgs__config_value, (bool, int, str)) and not (isinstance(data__nixpkgs__config_value, float) and data__nixpkgs__config_value.is_integer()):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".nixpkgs.config.{data__nixpkgs__config_key}".format(**locals()) + " must be boolean or integer or string")
                                        if isinstance(data__nixpkgs__config_value, (int, float, Decimal)) and not isinstance(data__nixpkgs__config_value, bool):
                                            if data__nixpkgs__config_value < -9223372036854775807:
                                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".nixpkgs.config.{data__nixpkgs__config_key}".format(**locals()) + " must be bigger than or equal to -9223372036854775807")
                                            if data__nixpkgs__config_value > 9223372036854775807:
                                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".nixpkgs.config.{data__nixpkgs__config_key}".format(**locals()) + " must be smaller than or equal to 9223372036854775807")
                                        data__nixpkgs__config_value_one_of_count4 += 1
                                    except (JsonSchemaValueException, JsonSchemaValuesException): pass
                                if data__nixpkgs__config_value_one_of_count4 < 2:
                                    try:
                                        if not isinstance(data__nixpkgs__config_value, (list, tuple)):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".nixpkgs.config.{data__nixpkgs__config_key}".format(**locals()) + " must be array")
                                        data__nixpkgs__config_value_is_list = isinstance(data__nixpkgs__config_value, (list, tuple))
                                        if data__nixpkgs__config_value_is_list:
                                            data__nixpkgs__config_value_len = len(data__nixpkgs__config_value)
                                            for data__nixpkgs__config_value_x, data__nixpkgs__config_value_item in enumerate(data__nixpkgs__config_value):
                                                if not isinstance(data__nixpkgs__config_value_item, (str)):
                                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".nixpkgs.config.{data__nixpkgs__config_key}[{data__nixpkgs__config_value_x}]".format(**locals()) + " must be string")
                                        data__nixpkgs__config_value_one_of_count4 += 1
                                    except (JsonSchemaValueException, JsonSchemaValuesException): pass
                                if data__nixpkgs__config_value_one_of_count4 != 1:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".nixpkgs.config.{data__nixpkgs__config_key}".format(**locals()) + " must be valid exactly by one definition")
                        data__nixpkgs__config_len = len(data__nixpkgs__config)
                        if data__nixpkgs__config_len != 0:
                            data__nixpkgs__config_property_names = True
                            for data__nixpkgs__config_key in data__nixpkgs__config:
                                try:
                                    if isinstance(data__nixpkgs__config_key, str):
                                        if not REGEX_PATTERNS['^[A-Za-z_][A-Za-z0-9_-]*$'].search(data__nixpkgs__config_key):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".nixpkgs.config must match pattern ^[A-Za-z_][A-Za-z0-9_-]*$")
                                except (JsonSchemaValueException, JsonSchemaValuesException):
                                    data__nixpkgs__config_property_names = False
                            if not data__nixpkgs__config_property_names:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".nixpkgs.config must be named by propertyName definition")
                if "patches" in data__nixpkgs_keys:
                    data__nixpkgs_keys.remove("patches")
                    data__nixpkgs__patches = data__nixpkgs["patches"]
                    if not isinstance(data__nixpkgs__patches, (dict)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".nixpkgs.patches must be object")
                    data__nixpkgs__patches_is_dict = isinstance(data__nixpkgs__patches, dict)
                    if data__nixpkgs__patches_is_dict:
                        data__nixpkgs__patches_keys = set(data__nixpkgs__patches.keys())
                        for data__nixpkgs__patches_key in data__nixpkgs__patches_keys:
                            if data__nixpkgs__patches_key not in []:
                                data__nixpkgs__patches_value = data__nixpkgs__patches.get(data__nixpkgs__patches_key)
                                if not isinstance(data__nixpkgs__patches_value, (list, tuple)):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".nixpkgs.patches.{data__nixpkgs__patches_key}".format(**locals()) + " must be array")
                                data__nixpkgs__patches_value_is_list = isinstance(data__nixpkgs__patches_value, (list, tuple))
                                if data__nixpkgs__patches_value_is_list:
                                    data__nixpkgs__patches_value_len = len(data__nixpkgs__patches_value)
                                    if data__nixpkgs__patches_value_len < 1:
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".nixpkgs.patches.{data__nixpkgs__patches_key}".format(**locals()) + " must contain at least 1 items")
                                    for data__nixpkgs__patches_value_x, data__nixpkgs__patches_value_item in enumerate(data__nixpkgs__patches_value):
                                        if not isinstance(data__nixpkgs__patches_value_item, (dict)):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".nixpkgs.patches.{data__nixpkgs__patches_key}[{data__nixpkgs__patches_value_x}]".format(**locals()) + " must be object")
                                        data__nixpkgs__patches_value_item_is_dict = isinstance(data__nixpkgs__patches_value_item, dict)
                                        if data__nixpkgs__patches_value_item_is_dict:
                                            data__nixpkgs__patches_value_item__missing_keys = set(['url', 'hash']) - data__nixpkgs__patches_value_item.keys()
                                            if data__nixpkgs__patches_value_item__missing_keys:
                                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".nixpkgs.patches.{data__nixpkgs__patches_key}[{data__nixpkgs__patches_value_x}]".format(**locals()) + " must contain ")
                                            data__nixpkgs__patches_value_item_keys = set(data__nixpkgs__patches_value_item.keys())
                                            if "url" in data__nixpkgs__patches_value_item_keys:
                                                data__nixpkgs__patches_value_item_keys.remove("url")
                                                data__nixpkgs__patches_value_item__url = data__nixpkgs__patches_value_item["url"]
                                                if not isinstance(data__nixpkgs__patches_value_item__url, (str)):
                                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".nixpkgs.patches.{data__nixpkgs__patches_key}[{data__nixpkgs__patches_value_x}].url".format(**locals()) + " must be string")
                                                if isinstance(data__nixpkgs__patches_value_item__url, str):
                                                    if not REGEX_PATTERNS['^https?://\\S+$'].search(data__nixpkgs__patches_value_item__url):
                                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".nixpkgs.patches.{data__nixpkgs__patches_key}[{data__nixpkgs__patches_value_x}].url".format(**locals()) + " must match pattern ^https?://\\S+$")
                                            if "hash" in data__nixpkgs__patches_value_item_keys:
                                                data__nixpkgs__patches_value_item_keys.remove("hash")
                                                data__nixpkgs__patches_value_item__hash = data__nixpkgs__patches_value_item["hash"]
                                                validate____defs_srihash(data__nixpkgs__patches_value_item__hash, custom_formats, (name_prefix or "data") + ".nixpkgs.patches.{data__nixpkgs__patches_key}[{data__nixpkgs__patches_value_x}].hash".format(**locals()))
                                            if data__nixpkgs__patches_value_item_keys:
                                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".nixpkgs.patches.{data__nixpkgs__patches_key}[{data__nixpkgs__patches_value_x}]".format(**locals()) + " must not contain "+str(data__nixpkgs__patches_value_item_keys)+" properties")
                        data__nixpkgs__patches_len = len(data__nixpkgs__patches)
                        if data__nixpkgs__patches_len != 0:
                            data__nixpkgs__patches_property_names = True
                            for data__nixpkgs__patches_key in data__nixpkgs__patches:
                                try:
                                    if isinstance(data__nixpkgs__patches_key, str):
                                        if not REGEX_PATTERNS['^[A-Za-z_][A-Za-z0-9_-]*$'].search(data__nixpkgs__patches_key):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".nixpkgs.patches must match pattern ^[A-Za-z_][A-Za-z0-9_-]*$")
                                except (JsonSchemaValueException, JsonSchemaValuesException):
                                    data__nixpkgs__patches_property_names = False
                            if not data__nixpkgs__patches_property_names:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".nixpkgs.patches must be named by propertyName definition")
                if "pins" in data__nixpkgs_keys:
                    data__nixpkgs_keys.remove("pins")
                    data__nixpkgs__pins = data__nixpkgs["pins"]
                    if not isinstance(data__nixpkgs__pins, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".nixpkgs.pins must be array")
                    data__nixpkgs__pins_is_list = isinstance(data__nixpkgs__pins, (list, tuple))
                    if data__nixpkgs__pins_is_list:
                        data__nixpkgs__pins_len = len(data__nixpkgs__pins)
                        if data__nixpkgs__pins_len < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".nixpkgs.pins must contain at least 1 items")
                        for data__nixpkgs__pins_x, data__nixpkgs__pins_item in enumerate(data__nixpkgs__pins):
                            validate____defs_pin(data__nixpkgs__pins_item, custom_formats, (name_prefix or "data") + ".nixpkgs.pins[{data__nixpkgs__pins_x}]".format(**locals()))
                if data__nixpkgs_keys:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".nixpkgs must not contain "+str(data__nixpkgs_keys)+" properties")
        if "build" in data_keys:
            data_keys.remove("build")
            data__build = data["build"]
            if not isinstance(data__build, (dict)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".build must be object")
            data__build_is_dict = isinstance(data__build, dict)
            if data__build_is_dict:
                data__build_keys = set(data__build.keys())
                if "jobs" in data__build_keys:
                    data__build_keys.remove("jobs")
                    data__build__jobs = data__build["jobs"]
                    if not isinstance(data__build__jobs, (int)) and not (isinstance(data__build__jobs, float) and data__build__jobs.is_integer()) or isinstance(data__build__jobs, bool):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".build.jobs must be integer")
                    if isinstance(data__build__jobs, (int, float, Decimal)) and not isinstance(data__build__jobs, bool):
                        if data__build__jobs < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".build.jobs must be bigger than or equal to 1")
                        if data__build__jobs > 4096:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".build.jobs must be smaller than or equal to 4096")
                if "system_features" in data__build_keys:
                    data__build_keys.remove("system_features")
                    data__build__systemfeatures = data__build["system_features"]
                    if not isinstance(data__build__systemfeatures, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".build.system_features must be array")
                    data__build__systemfeatures_is_list = isinstance(data__build__systemfeatures, (list, tuple))
                    if data__build__systemfeatures_is_list:
                        data__build__systemfeatures_len = len(data__build__systemfeatures)
                        for data__build__systemfeatures_x, data__build__systemfeatures_item in enumerate(data__build__systemfeatures):
                            if not isinstance(data__build__systemfeatures_item, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".build.system_features[{data__build__systemfeatures_x}]".format(**locals()) + " must be string")
                            if isinstance(data__build__systemfeatures_item, str):
                                if not REGEX_PATTERNS['^[a-z0-9][a-z0-9_-]*$'].search(data__build__systemfeatures_item):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".build.system_features[{data__build__systemfeatures_x}]".format(**locals()) + " must match pattern ^[a-z0-9][a-z0-9_-]*$")
                if "compiler_cache" in data__build_keys:
                    data__build_keys.remove("compiler_cache")
                    data__build__compilercache = data__build["compiler_cache"]
                    if not (isinstance(data__build__compilercache, str) and data__build__compilercache == 'none' or isinstance(data__build__compilercache, str) and data__build__compilercache == 'ccache'):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".build.compiler_cache must be one of ['none', 'ccache']")
                if "compiler_cache_runners" in data__build_keys:
                    data__build_keys.remove("compiler_cache_runners")
                    data__build__compilercacherunners = data__build["compiler_cache_runners"]
                    if not (isinstance(data__build__compilercacherunners, str) and data__build__compilercacherunners == 'dedicated'):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".build.compiler_cache_runners must be one of ['dedicated']")
                if data__build_keys:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".build must not contain "+str(data__build_keys)+" properties")
        if "naming" in data_keys:
            data_keys.remove("naming")
            data__naming = data["naming"]
            if not isinstance(data__naming, (dict)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".naming must be object")
            data__naming_is_dict = isinstance(data__naming, dict)
            if data__naming_is_dict:
                data__naming_keys = set(data__naming.keys())
                if "gpu" in data__naming_keys:
                    data__naming_keys.remove("gpu")
                    data__naming__gpu = data__naming["gpu"]
                    if not isinstance(data__naming__gpu, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".naming.gpu must be string")
                if "cpu" in data__naming_keys:
                    data__naming_keys.remove("cpu")
                    data__naming__cpu = data__naming["cpu"]
                    if not isinstance(data__naming__cpu, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".naming.cpu must be string")
                if "darwin" in data__naming_keys:
                    data__naming_keys.remove("darwin")
                    data__naming__darwin = data__naming["darwin"]
                    if not isinstance(data__naming__darwin, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".naming.darwin must be string")
                if "rocm" in data__naming_keys:
                    data__naming_keys.remove("rocm")
                    data__naming__rocm = data__naming["rocm"]
                    if not isinstance(data__naming__rocm, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".naming.rocm must be string")
                if data__naming_keys:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".naming must not contain "+str(data__naming_keys)+" properties")
        if "description" in data_keys:
            data_keys.remove("description")
            data__description = data["description"]
            if not isinstance(data__description, (dict)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".description must be object")
            data__description_is_dict = isinstance(data__description, dict)
            if data__description_is_dict:
                data__description_keys = set(data__description.keys())
                if "gpu" in data__description_keys:
                    data__description_keys.remove("gpu")
                    data__description__gpu = data__description["gpu"]
                    if not isinstance(data__description__gpu, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".description.gpu must be string")
                if "cpu" in data__description_keys:
                    data__description_keys.remove("cpu")
                    data__description__cpu = data__description["cpu"]
                    if not isinstance(data__description__cpu, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".description.cpu must be string")
                if "darwin" in data__description_keys:
                    data__description_keys.remove("darwin")
                    data__description__darwin = data__description["darwin"]
                    if not isinstance(data__description__darwin, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".description.darwin must be string")
                if "rocm" in data__description_keys:
                    data__description_keys.remove("rocm")
                    data__description__rocm = data__description["rocm"]
                    if not isinstance(data__description__rocm, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".description.rocm must be string")
                if "companion" in data__description_keys:
                    data__description_keys.remove("companion")
                    data__description__companion = data__description["companion"]
                    if not isinstance(data__description__companion, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".description.companion must be string")
                if data__description_keys:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".description must not contain "+str(data__description_keys)+" properties")
        if "gpu" in data_keys:
            data_keys.remove("gpu")
            data__gpu = data["gpu"]
            if not isinstance(data__gpu, (dict)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".gpu must be object")
            data__gpu_is_dict = isinstance(data__gpu, dict)
            if data__gpu_is_dict:
                data__gpu_keys = set(data__gpu.keys())
                if "python" in data__gpu_keys:
                    data__gpu_keys.remove("python")
                    data__gpu__python = data__gpu["python"]
                    if not isinstance(data__gpu__python, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".gpu.python must be array")
                    data__gpu__python_is_list = isinstance(data__gpu__python, (list, tuple))
                    if data__gpu__python_is_list:
                        def fn(var): return frozenset(dict((k, fn(v)) for k, v in var.items()).items()) if hasattr(var, "items") else tuple(fn(v) for v in var) if isinstance(var, (dict, list)) else (bool, var) if isinstance(var, bool) else var
                        data__gpu__python_len = len(data__gpu__python)
                        if data__gpu__python_len > len(set(fn(data__gpu__python_x) for data__gpu__python_x in data__gpu__python)):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".gpu.python must contain unique items")
                        for data__gpu__python_x, data__gpu__python_item in enumerate(data__gpu__python):
                            validate____defs_version(data__gpu__python_item, custom_formats, (name_prefix or "data") + ".gpu.python[{data__gpu__python_x}]".format(**locals()))
                if "cuda" in data__gpu_keys:
                    data__gpu_keys.remove("cuda")
                    data__gpu__cuda = data__gpu["cuda"]
                    if not isinstance(data__gpu__cuda, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".gpu.cuda must be array")
                    data__gpu__cuda_is_list = isinstance(data__gpu__cuda, (list, tuple))
                    if data__gpu__cuda_is_list:
                        def fn(var): return frozenset(dict((k, fn(v)) for k, v in var.items()).items()) if hasattr(var, "items") else tuple(fn(v) for v in var) if isinstance(var, (dict, list)) else (bool, var) if isinstance(var, bool) else var
                        data__gpu__cuda_len = len(data__gpu__cuda)
                        if data__gpu__cuda_len > len(set(fn(data__gpu__cuda_x) for data__gpu__cuda_x in data__gpu__cuda)):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".gpu.cuda must contain unique items")
                        for data__gpu__cuda_x, data__gpu__cuda_item in enumerate(data__gpu__cuda):
                            validate____defs_version(data__gpu__cuda_item, custom_formats, (name_prefix or "data") + ".gpu.cuda[{data__gpu__cuda_x}]".format(**locals()))
                if "sm" in data__gpu_keys:
                    data__gpu_keys.remove("sm")
                    data__gpu__sm = data__gpu["sm"]
                    if not isinstance(data__gpu__sm, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".gpu.sm must be array")
                    data__gpu__sm_is_list = isinstance(data__gpu__sm, (list, tuple))
                    if data__gpu__sm_is_list:
                        def fn(var): return frozenset(dict((k, fn(v)) for k, v in var.items()).items()) if hasattr(var, "items") else tuple(fn(v) for v in var) if isinstance(var, (dict, list)) else (bool, var) if isinstance(var, bool) else var
                        data__gpu__sm_len = len(data__gpu__sm)
                        if data__gpu__sm_len > len(set(fn(data__gpu__sm_x) for data__gpu__sm_x in data__gpu__sm)):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".gpu.sm must contain unique items")
                        for data__gpu__sm_x, data__gpu__sm_item in enumerate(data__gpu__sm):
                            if not isinstance(data__gpu__sm_item, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".gpu.sm[{data__gpu__sm_x}]".format(**locals()) + " must be string")
                if "isa" in data__gpu_keys:
                    data__gpu_keys.remove("isa")
                    data__gpu__isa = data__gpu["isa"]
                    if not isinstance(data__gpu__isa, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".gpu.isa must be array")
                    data__gpu__isa_is_list = isinstance(data__gpu__isa, (list, tuple))
                    if data__gpu__isa_is_list:
                        def fn(var): return frozenset(dict((k, fn(v)) for k, v in var.items()).items()) if hasattr(var, "items") else tuple(fn(v) for v in var) if isinstance(var, (dict, list)) else (bool, var) if isinstance(var, bool) else var
                        data__gpu__isa_len = len(data__gpu__isa)
                        if data__gpu__isa_len > len(set(fn(data__gpu__isa_x) for data__gpu__isa_x in data__gpu__isa)):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".gpu.isa must contain unique items")
                        for data__gpu__isa_x, data__gpu__isa_item in enumerate(data__gpu__isa):
                            if not isinstance(data__gpu__isa_item, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".gpu.isa[{data__gpu__isa_x}]".format(**locals()) + " must be string")
                if "restrict" in data__gpu_keys:
                    data__gpu_keys.remove("restrict")
                    data__gpu__restrict = data__gpu["restrict"]
                    if not isinstance(data__gpu__restrict, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".gpu.restrict must be array")
                    data__gpu__restrict_is_list = isinstance(data__gpu__restrict, (list, tuple))
                    if data__gpu__restrict_is_list:
                        data__gpu__restrict_len = len(data__gpu__restrict)
                        for data__gpu__restrict_x, data__gpu__restrict_item in enumerate(data__gpu__restrict):
                            if not isinstance(data__gpu__restrict_item, (dict)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".gpu.restrict[{data__gpu__restrict_x}]".format(**locals()) + " must be object")
                            data__gpu__restrict_item_is_dict = isinstance(data__gpu__restrict_item, dict)
                            if data__gpu__restrict_item_is_dict:
                                data__gpu__restrict_item__missing_keys = set(['when', 'only']) - data__gpu__restrict_item.keys()
                                if data__gpu__restrict_item__missing_keys:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".gpu.restrict[{data__gpu__restrict_x}]".format(**locals()) + " must contain ")
                                data__gpu__restrict_item_keys = set(data__gpu__restrict_item.keys())
                                if "when" in data__gpu__restrict_item_keys:
                                    data__gpu__restrict_item_keys.remove("when")
                                    data__gpu__restrict_item__when = data__gpu__restrict_item["when"]
                                    validate____defs_gpumatch(data__gpu__restrict_item__when, custom_formats, (name_prefix or "data") + ".gpu.restrict[{data__gpu__restrict_x}].when".format(**locals()))
                                if "only" in data__gpu__restrict_item_keys:
                                    data__gpu__restrict_item_keys.remove("only")
                                    data__gpu__restrict_item__only = data__gpu__restrict_item["only"]
                                    validate____defs_gpumatch(data__gpu__restrict_item__only, custom_formats, (name_prefix or "data") + ".gpu.restrict[{data__gpu__restrict_x}].only".format(**locals()))
                                if data__gpu__restrict_item_keys:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".gpu.restrict[{data__gpu__restrict_x}]".format(**locals()) + " must not contain "+str(data__gpu__restrict_item_keys)+" properties")
                if "include" in data__gpu_keys:
                    data__gpu_keys.remove("include")
                    data__gpu__include = data__gpu["include"]
                    if not isinstance(data__gpu__include, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".gpu.include must be array")
                    data__gpu__include_is_list = isinstance(data__gpu__include, (list, tuple))
                    if data__gpu__include_is_list:
                        data__gpu__include_len = len(data__gpu__include)
                        for data__gpu__include_x, data__gpu__include_item in enumerate(data__gpu__include):
                            validate____defs_gpucombination(data__gpu__include_item, custom_formats, (name_prefix or "data") + ".gpu.include[{data__gpu__include_x}]".format(**locals()))
                if "exclude" in data__gpu_keys:
                    data__gpu_keys.remove("exclude")
                    data__gpu__exclude = data__gpu["exclude"]
                    if not isinstance(data__gpu__exclude, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".gpu.exclude must be array")
                    data__gpu__exclude_is_list = isinstance(data__gpu__exclude, (list, tuple))
                    if data__gpu__exclude_is_list:
                        data__gpu__exclude_len = len(data__gpu__exclude)
                        for data__gpu__exclude_x, data__gpu__exclude_item in enumerate(data__gpu__exclude):
                            validate____defs_gpumatch(data__gpu__exclude_item, custom_formats, (name_prefix or "data") + ".gpu.exclude[{data__gpu__exclude_x}]".format(**locals()))
                if data__gpu_keys:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".gpu must not contain "+str(data__gpu_keys)+" properties")
        if "cpu" in data_keys:
            data_keys.remove("cpu")
            data__cpu = data["cpu"]
            if not isinstance(data__cpu, (dict)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".cpu must be object")
            data__cpu_is_dict = isinstance(data__cpu, dict)
            if data__cpu_is_dict:
                data__cpu_keys = set(data__cpu.keys())
                if "python" in data__cpu_keys:
                    data__cpu_keys.remove("python")
                    data__cpu__python = data__cpu["python"]
                    if not isinstance(data__cpu__python, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".cpu.python must be array")
                    data__cpu__python_is_list = isinstance(data__cpu__python, (list, tuple))
                    if data__cpu__python_is_list:
                        def fn(var): return frozenset(dict((k, fn(v)) for k, v in var.items()).items()) if hasattr(var, "items") else tuple(fn(v) for v in var) if isinstance(var, (dict, list)) else (bool, var) if isinstance(var, bool) else var
                        data__cpu__python_len = len(data__cpu__python)
                        if data__cpu__python_len > len(set(fn(data__cpu__python_x) for data__cpu__python_x in data__cpu__python)):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".cpu.python must contain unique items")
                        for data__cpu__python_x, data__cpu__python_item in enumerate(data__cpu__python):
                            validate____defs_version(data__cpu__python_item, custom_formats, (name_prefix or "data") + ".cpu.python[{data__cpu__python_x}]".format(**locals()))
                if "isa" in data__cpu_keys:
                    data__cpu_keys.remove("isa")
                    data__cpu__isa = data__cpu["isa"]
                    if not isinstance(data__cpu__isa, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".cpu.isa must be array")
                    data__cpu__isa_is_list = isinstance(data__cpu__isa, (list, tuple))
                    if data__cpu__isa_is_list:
                        def fn(var): return frozenset(dict((k, fn(v)) for k, v in var.items()).items()) if hasattr(var, "items") else tuple(fn(v) for v in var) if isinstance(var, (dict, list)) else (bool, var) if isinstance(var, bool) else var
                        data__cpu__isa_len = len(data__cpu__isa)
                        if data__cpu__isa_len > len(set(fn(data__cpu__isa_x) for data__cpu__isa_x in data__cpu__isa)):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".cpu.isa must contain unique items")
                        for data__cpu__isa_x, data__cpu__isa_item in enumerate(data__cpu__isa):
                            if not isinstance(data__cpu__isa_item, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".cpu.isa[{data__cpu__isa_x}]".format(**locals()) + " must be string")
                if "restrict" in data__cpu_keys:
                    data__cpu_keys.remove("restrict")
                    data__cpu__restrict = data__cpu["restrict"]
                    if not isinstance(data__cpu__restrict, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".cpu.restrict must be array")
                    data__cpu__restrict_is_list = isinstance(data__cpu__restrict, (list, tuple))
                    if data__cpu__restrict_is_list:
                        data__cpu__restrict_len = len(data__cpu__restrict)
                        for data__cpu__restrict_x, data__cpu__restrict_item in enumerate(data__cpu__restrict):
                            if not isinstance(data__cpu__restrict_item, (dict)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".cpu.restrict[{data__cpu__restrict_x}]".format(**locals()) + " must be object")
                            data__cpu__restrict_item_is_dict = isinstance(data__cpu__restrict_item, dict)
                            if data__cpu__restrict_item_is_dict:
                                data__cpu__restrict_item__missing_keys = set(['when', 'only']) - data__cpu__restrict_item.keys()
                                if data__cpu__restrict_item__missing_keys:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".cpu.restrict[{data__cpu__restrict_x}]".format(**locals()) + " must contain ")
                                data__cpu__restrict_item_keys = set(data__cpu__restrict_item.keys())
                                if "when" in data__cpu__restrict_item_keys:
                                    data__cpu__restrict_item_keys.remove("when")
                                    data__cpu__restrict_item__when = data__cpu__restrict_item["when"]
                                    validate____defs_cpumatch(data__cpu__restrict_item__when, custom_formats, (name_prefix or "data") + ".cpu.restrict[{data__cpu__restrict_x}].when".format(**locals()))
                                if "only" in data__cpu__restrict_item_keys:
                                    data__cpu__restrict_item_keys.remove("only")
                                    data__cpu__restrict_item__only = data__cpu__restrict_item["only"]
                                    validate____defs_cpumatch(data__cpu__restrict_item__only, custom_formats, (name_prefix or "data") + ".cpu.restrict[{data__cpu__restrict_x}].only".format(**locals()))
                                if data__cpu__restrict_item_keys:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".cpu.restrict[{data__cpu__restrict_x}]".format(**locals()) + " must not contain "+str(data__cpu__restrict_item_keys)+" properties")
                if "include" in data__cpu_keys:
                    data__cpu_keys.remove("include")
                    data__cpu__include = data__cpu["include"]
                    if not isinstance(data__cpu__include, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".cpu.include must be array")
                    data__cpu__include_is_list = isinstance(data__cpu__include, (list, tuple))
                    if data__cpu__include_is_list:
                        data__cpu__include_len = len(data__cpu__include)
                        for data__cpu__include_x, data__cpu__include_item in enumerate(data__cpu__include):
                            validate____defs_cpucombination(data__cpu__include_item, custom_formats, (name_prefix or "data") + ".cpu.include[{data__cpu__include_x}]".format(**locals()))
                if "exclude" in data__cpu_keys:
                    data__cpu_keys.remove("exclude")
                    data__cpu__exclude = data__cpu["exclude"]
                    if not isinstance(data__cpu__exclude, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".cpu.exclude must be array")
                    data__cpu__exclude_is_list = isinstance(data__cpu__exclude, (list, tuple))
                    if data__cpu__exclude_is_list:
                        data__cpu__exclude_len = len(data__cpu__exclude)
                        for data__cpu__exclude_x, data__cpu__exclude_item in enumerate(data__cpu__exclude):
                            validate____defs_cpumatch(data__cpu__exclude_item, custom_formats, (name_prefix or "data") + ".cpu.exclude[{data__cpu__exclude_x}]".format(**locals()))
                if data__cpu_keys:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".cpu must not contain "+str(data__cpu_keys)+" properties")
        if "darwin" in data_keys:
            data_keys.remove("darwin")
            data__darwin = data["darwin"]
            if not isinstance(data__darwin, (dict)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".darwin must be object")
            data__darwin_is_dict = isinstance(data__darwin, dict)
            if data__darwin_is_dict:
                data__darwin_keys = set(data__darwin.keys())
                if "python" in data__darwin_keys:
                    data__darwin_keys.remove("python")
                    data__darwin__python = data__darwin["python"]
                    if not isinstance(data__darwin__python, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".darwin.python must be array")
                    data__darwin__python_is_list = isinstance(data__darwin__python, (list, tuple))
                    if data__darwin__python_is_list:
                        def fn(var): return frozenset(dict((k, fn(v)) for k, v in var.items()).items()) if hasattr(var, "items") else tuple(fn(v) for v in var) if isinstance(var, (dict, list)) else (bool, var) if isinstance(var, bool) else var
                        data__darwin__python_len = len(data__darwin__python)
                        if data__darwin__python_len > len(set(fn(data__darwin__python_x) for data__darwin__python_x in data__darwin__python)):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".darwin.python must contain unique items")
                        for data__darwin__python_x, data__darwin__python_item in enumerate(data__darwin__python):
                            validate____defs_version(data__darwin__python_item, custom_formats, (name_prefix or "data") + ".darwin.python[{data__darwin__python_x}]".format(**locals()))
                if "accelerator" in data__darwin_keys:
                    data__darwin_keys.remove("accelerator")
                    data__darwin__accelerator = data__darwin["accelerator"]
                    if not isinstance(data__darwin__accelerator, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".darwin.accelerator must be array")
                    data__darwin__accelerator_is_list = isinstance(data__darwin__accelerator, (list, tuple))
                    if data__darwin__accelerator_is_list:
                        def fn(var): return frozenset(dict((k, fn(v)) for k, v in var.items()).items()) if hasattr(var, "items") else tuple(fn(v) for v in var) if isinstance(var, (dict, list)) else (bool, var) if isinstance(var, bool) else var
                        data__darwin__accelerator_len = len(data__darwin__accelerator)
                        if data__darwin__accelerator_len > len(set(fn(data__darwin__accelerator_x) for data__darwin__accelerator_x in data__darwin__accelerator)):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".darwin.accelerator must contain unique items")
                        for data__darwin__accelerator_x, data__darwin__accelerator_item in enumerate(data__darwin__accelerator):
                            if not isinstance(data__darwin__accelerator_item, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".darwin.accelerator[{data__darwin__accelerator_x}]".format(**locals()) + " must be string")
                if "restrict" in data__darwin_keys:
                    data__darwin_keys.remove("restrict")
                    data__darwin__restrict = data__darwin["restrict"]
                    if not isinstance(data__darwin__restrict, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".darwin.restrict must be array")
                    data__darwin__restrict_is_list = isinstance(data__darwin__restrict, (list, tuple))
                    if data__darwin__restrict_is_list:
                        data__darwin__restrict_len = len(data__darwin__restrict)
                        for data__darwin__restrict_x, data__darwin__restrict_item in enumerate(data__darwin__restrict):
                            if not isinstance(data__darwin__restrict_item, (dict)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".darwin.restrict[{data__darwin__restrict_x}]".format(**locals()) + " must be object")
                            data__darwin__restrict_item_is_dict = isinstance(data__darwin__restrict_item, dict)
                            if data__darwin__restrict_item_is_dict:
                                data__darwin__restrict_item__missing_keys = set(['when', 'only']) - data__darwin__restrict_item.keys()
                                if data__darwin__restrict_item__missing_keys:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".darwin.restrict[{data__darwin__restrict_x}]".format(**locals()) + " must contain ")
                                data__darwin__restrict_item_keys = set(data__darwin__restrict_item.keys())
                                if "when" in data__darwin__restrict_item_keys:
                                    data__darwin__restrict_item_keys.remove("when")
                                    data__darwin__restrict_item__when = data__darwin__restrict_item["when"]
                                    validate____defs_darwinmatch(data__darwin__restrict_item__when, custom_formats, (name_prefix or "data") + ".darwin.restrict[{data__darwin__restrict_x}].when".format(**locals()))
                                if "only" in data__darwin__restrict_item_keys:
                                    data__darwin__restrict_item_keys.remove("only")
                                    data__darwin__restrict_item__only = data__darwin__restrict_item["only"]
                                    validate____defs_darwinmatch(data__darwin__restrict_item__only, custom_formats, (name_prefix or "data") + ".darwin.restrict[{data__darwin__restrict_x}].only".format(**locals()))
                                if data__darwin__restrict_item_keys:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".darwin.restrict[{data__darwin__restrict_x}]".format(**locals()) + " must not contain "+str(data__darwin__restrict_item_keys)+" properties")
                if "include" in data__darwin_keys:
                    data__darwin_keys.remove("include")
                    data__darwin__include = data__darwin["include"]
                    if not isinstance(data__darwin__include, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".darwin.include must be array")
                    data__darwin__include_is_list = isinstance(data__darwin__include, (list, tuple))
                    if data__darwin__include_is_list:
                        data__darwin__include_len = len(data__darwin__include)
                        for data__darwin__include_x, data__darwin__include_item in enumerate(data__darwin__include):
                            validate____defs_darwincombination(data__darwin__include_item, custom_formats, (name_prefix or "data") + ".darwin.include[{data__darwin__include_x}]".format(**locals()))
                if "exclude" in data__darwin_keys:
                    data__darwin_keys.remove("exclude")
                    data__darwin__exclude = data__darwin["exclude"]
                    if not isinstance(data__darwin__exclude, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".darwin.exclude must be array")
                    data__darwin__exclude_is_list = isinstance(data__darwin__exclude, (list, tuple))
                    if data__darwin__exclude_is_list:
                        data__darwin__exclude_len = len(data__darwin__exclude)
                        for data__darwin__exclude_x, data__darwin__exclude_item in enumerate(data__darwin__exclude):
                            validate____defs_darwinmatch(data__darwin__exclude_item, custom_formats, (name_prefix or "data") + ".darwin.exclude[{data__darwin__exclude_x}]".format(**locals()))
                if data__darwin_keys:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".darwin must not contain "+str(data__darwin_keys)+" properties")
        if "rocm" in data_keys:
            data_keys.remove("rocm")
            data__rocm = data["rocm"]
            if not isinstance(data__rocm, (dict)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".rocm must be object")
            data__rocm_is_dict = isinstance(data__rocm, dict)
            if data__rocm_is_dict:
                data__rocm_keys = set(data__rocm.keys())
                if "python" in data__rocm_keys:
                    data__rocm_keys.remove("python")
                    data__rocm__python = data__rocm["python"]
                    if not isinstance(data__rocm__python, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".rocm.python must be array")
                    data__rocm__python_is_list = isinstance(data__rocm__python, (list, tuple))
                    if data__rocm__python_is_list:
                        def fn(var): return frozenset(dict((k, fn(v)) for k, v in var.items()).items()) if hasattr(var, "items") else tuple(fn(v) for v in var) if isinstance(var, (dict, list)) else (bool, var) if isinstance(var, bool) else var
                        data__rocm__python_len = len(data__rocm__python)
                        if data__rocm__python_len > len(set(fn(data__rocm__python_x) for data__rocm__python_x in data__rocm__python)):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".rocm.python must contain unique items")
                        for data__rocm__python_x, data__rocm__python_item in enumerate(data__rocm__python):
                            validate____defs_version(data__rocm__python_item, custom_formats, (name_prefix or "data") + ".rocm.python[{data__rocm__python_x}]".format(**locals()))
                if "rocm" in data__rocm_keys:
                    data__rocm_keys.remove("rocm")
                    data__rocm__rocm = data__rocm["rocm"]
                    if not isinstance(data__rocm__rocm, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".rocm.rocm must be array")
                    data__rocm__rocm_is_list = isinstance(data__rocm__rocm, (list, tuple))
                    if data__rocm__rocm_is_list:
                        def fn(var): return frozenset(dict((k, fn(v)) for k, v in var.items()).items()) if hasattr(var, "items") else tuple(fn(v) for v in var) if isinstance(var, (dict, list)) else (bool, var) if isinstance(var, bool) else var
                        data__rocm__rocm_len = len(data__rocm__rocm)
                        if data__rocm__rocm_len > len(set(fn(data__rocm__rocm_x) for data__rocm__rocm_x in data__rocm__rocm)):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".rocm.rocm must contain unique items")
                        for data__rocm__rocm_x, data__rocm__rocm_item in enumerate(data__rocm__rocm):
                            validate____defs_version(data__rocm__rocm_item, custom_formats, (name_prefix or "data") + ".rocm.rocm[{data__rocm__rocm_x}]".format(**locals()))
                if "gfx" in data__rocm_keys:
                    data__rocm_keys.remove("gfx")
                    data__rocm__gfx = data__rocm["gfx"]
                    if not isinstance(data__rocm__gfx, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".rocm.gfx must be array")
                    data__rocm__gfx_is_list = isinstance(data__rocm__gfx, (list, tuple))
                    if data__rocm__gfx_is_list:
                        def fn(var): return frozenset(dict((k, fn(v)) for k, v in var.items()).items()) if hasattr(var, "items") else tuple(fn(v) for v in var) if isinstance(var, (dict, list)) else (bool, var) if isinstance(var, bool) else var
                        data__rocm__gfx_len = len(data__rocm__gfx)
                        if data__rocm__gfx_len > len(set(fn(data__rocm__gfx_x) for data__rocm__gfx_x in data__rocm__gfx)):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".rocm.gfx must contain unique items")
                        for data__rocm__gfx_x, data__rocm__gfx_item in enumerate(data__rocm__gfx):
                            if not isinstance(data__rocm__gfx_item, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".rocm.gfx[{data__rocm__gfx_x}]".format(**locals()) + " must be string")
                if "isa" in data__rocm_keys:
                    data__rocm_keys.remove("isa")
                    data__rocm__isa = data__rocm["isa"]
                    if not isinstance(data__rocm__isa, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".rocm.isa must be array")
                    data__rocm__isa_is_list = isinstance(data__rocm__isa, (list, tuple))
                    if data__rocm__isa_is_list:
                        def fn(var): return frozenset(dict((k, fn(v)) for k, v in var.items()).items()) if hasattr(var, "items") else tuple(fn(v) for v in var) if isinstance(var, (dict, list)) else (bool, var) if isinstance(var, bool) else var
                        data__rocm__isa_len = len(data__rocm__isa)
                        if data__rocm__isa_len > len(set(fn(data__rocm__isa_x) for data__rocm__isa_x in data__rocm__isa)):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".rocm.isa must contain unique items")
                        for data__rocm__isa_x, data__rocm__isa_item in enumerate(data__rocm__isa):
                            if not isinstance(data__rocm__isa_item, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".rocm.isa[{data__rocm__isa_x}]".format(**locals()) + " must be string")
                if "restrict" in data__rocm_keys:
                    data__rocm_keys.remove("restrict")
                    data__rocm__restrict = data__rocm["restrict"]
                    if not isinstance(data__rocm__restrict, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".rocm.restrict must be array")
                    data__rocm__restrict_is_list = isinstance(data__rocm__restrict, (list, tuple))
                    if data__rocm__restrict_is_list:
                        data__rocm__restrict_len = len(data__rocm__restrict)
                        for data__rocm__restrict_x, data__rocm__restrict_item in enumerate(data__rocm__restrict):
                            if not isinstance(data__rocm__restrict_item, (dict)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".rocm.restrict[{data__rocm__restrict_x}]".format(**locals()) + " must be object")
                            data__rocm__restrict_item_is_dict = isinstance(data__rocm__restrict_item, dict)
                            if data__rocm__restrict_item_is_dict:
                                data__rocm__restrict_item__missing_keys = set(['when', 'only']) - data__rocm__restrict_item.keys()
                                if data__rocm__restrict_item__missing_keys:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".rocm.restrict[{data__rocm__restrict_x}]".format(**locals()) + " must contain ")
                                data__rocm__restrict_item_keys = set(data__rocm__restrict_item.keys())
                                if "when" in data__rocm__restrict_item_keys:
                                    data__rocm__restrict_item_keys.remove("when")
                                    data__rocm__restrict_item__when = data__rocm__restrict_item["when"]
                                    validate____defs_rocmmatch(data__rocm__restrict_item__when, custom_formats, (name_prefix or "data") + ".rocm.restrict[{data__rocm__restrict_x}].when".format(**locals()))
                                if "only" in data__rocm__restrict_item_keys:
                                    data__rocm__restrict_item_keys.remove("only")
                                    data__rocm__restrict_item__only = data__rocm__restrict_item["only"]
                                    validate____defs_rocmmatch(data__rocm__restrict_item__only, custom_formats, (name_prefix or "data") + ".rocm.restrict[{data__rocm__restrict_x}].only".format(**locals()))
                                if data__rocm__restrict_item_keys:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".rocm.restrict[{data__rocm__restrict_x}]".format(**locals()) + " must not contain "+str(data__rocm__restrict_item_keys)+" properties")
                if "include" in data__rocm_keys:
                    data__rocm_keys.remove("include")
                    data__rocm__include = data__rocm["include"]
                    if not isinstance(data__rocm__include, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".rocm.include must be array")
                    data__rocm__include_is_list = isinstance(data__rocm__include, (list, tuple))
                    if data__rocm__include_is_list:
                        data__rocm__include_len = len(data__rocm__include)
                        for data__rocm__include_x, data__rocm__include_item in enumerate(data__rocm__include):
                            validate____defs_rocmcombination(data__rocm__include_item, custom_formats, (name_prefix or "data") + ".rocm.include[{data__rocm__include_x}]".format(**locals()))
                if "exclude" in data__rocm_keys:
                    data__rocm_keys.remove("exclude")
                    data__rocm__exclude = data__rocm["exclude"]
                    if not isinstance(data__rocm__exclude, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".rocm.exclude must be array")
                    data__rocm__exclude_is_list = isinstance(data__rocm__exclude, (list, tuple))
                    if data__rocm__exclude_is_list:
                        data__rocm__exclude_len = len(data__rocm__exclude)
                        for data__rocm__exclude_x, data__rocm__exclude_item in enumerate(data__rocm__exclude):
                            validate____defs_rocmmatch(data__rocm__exclude_item, custom_formats, (name_prefix or "data") + ".rocm.exclude[{data__rocm__exclude_x}]".format(**locals()))
                if data__rocm_keys:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".rocm must not contain "+str(data__rocm_keys)+" properties")
        if "companions" in data_keys:
            data_keys.remove("companions")
            data__companions = data["companions"]
            if not isinstance(data__companions, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".companions must be array")
            data__companions_is_list = isinstance(data__companions, (list, tuple))
            if data__companions_is_list:
                data__companions_len = len(data__companions)
                for data__companions_x, data__companions_item in enumerate(data__companions):
                    if not isinstance(data__companions_item, (dict)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".companions[{data__companions_x}]".format(**locals()) + " must be object")
                    data__companions_item_is_dict = isinstance(data__companions_item, dict)
                    if data__companions_item_is_dict:
                        data__companions_item__missing_keys = set(['packages', 'when']) - data__companions_item.keys()
                        if data__companions_item__missing_keys:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".companions[{data__companions_x}]".format(**locals()) + " must contain ")
                        data__companions_item_keys = set(data__companions_item.keys())
                        if "packages" in data__companions_item_keys:
                            data__companions_item_keys.remove("packages")
                            data__companions_item__packages = data__companions_item["packages"]
                            if not isinstance(data__companions_item__packages, (list, tuple)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".companions[{data__companions_x}].packages".format(**locals()) + " must be array")
                            data__companions_item__packages_is_list = isinstance(data__companions_item__packages, (list, tuple))
                            if data__companions_item__packages_is_list:
                                data__companions_item__packages_len = len(data__companions_item__packages)
                                if data__companions_item__packages_len < 1:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".companions[{data__companions_x}].packages".format(**locals()) + " must contain at least 1 items")
                                def fn(var): return frozenset(dict((k, fn(v)) for k, v in var.items()).items()) if hasattr(var, "items") else tuple(fn(v) for v in var) if isinstance(var, (dict, list)) else (bool, var) if isinstance(var, bool) else var
                                if data__companions_item__packages_len > len(set(fn(data__companions_item__packages_x) for data__companions_item__packages_x in data__companions_item__packages)):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".companions[{data__companions_x}].packages".format(**locals()) + " must contain unique items")
                                for data__companions_item__packages_x, data__companions_item__packages_item in enumerate(data__companions_item__packages):
                                    if not (isinstance(data__companions_item__packages_item, str) and data__companions_item__packages_item == 'torchvision' or isinstance(data__companions_item__packages_item, str) and data__companions_item__packages_item == 'torchaudio'):
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".companions[{data__companions_x}].packages[{data__companions_item__packages_x}]".format(**locals()) + " must be one of ['torchvision', 'torchaudio']")
                        if "when" in data__companions_item_keys:
                            data__companions_item_keys.remove("when")
                            data__companions_item__when = data__companions_item["when"]
                            data__companions_item__when_one_of_count5 = 0
                            if data__companions_item__when_one_of_count5 < 2:
                                try:
                                    if not (isinstance(data__companions_item__when, str) and data__companions_item__when == 'all'):
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".companions[{data__companions_x}].when".format(**locals()) + " must be one of ['all']")
                                    data__companions_item__when_one_of_count5 += 1
                                except (JsonSchemaValueException, JsonSchemaValuesException): pass
                            if data__companions_item__when_one_of_count5 < 2:
                                try:
                                    validate____defs_anymatch(data__companions_item__when, custom_formats, (name_prefix or "data") + ".companions[{data__companions_x}].when".format(**locals()))
                                    data__companions_item__when_one_of_count5 += 1
                                except (JsonSchemaValueException, JsonSchemaValuesException): pass
                            if data__companions_item__when_one_of_count5 != 1:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".companions[{data__companions_x}].when".format(**locals()) + " must be valid exactly by one definition")
                        if data__companions_item_keys:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".companions[{data__companions_x}]".format(**locals()) + " must not contain "+str(data__companions_item_keys)+" properties")
        if "knowledge" in data_keys:
            data_keys.remove("knowledge")
            data__knowledge = data["knowledge"]
            if not isinstance(data__knowledge, (dict)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".knowledge must be object")
            data__knowledge_is_dict = isinstance(data__knowledge, dict)
            if data__knowledge_is_dict:
                data__knowledge_keys = set(data__knowledge.keys())
                if "sm" in data__knowledge_keys:
                    data__knowledge_keys.remove("sm")
                    data__knowledge__sm = data__knowledge["sm"]
                    if not isinstance(data__knowledge__sm, (dict)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".knowledge.sm must be object")
                    data__knowledge__sm_is_dict = isinstance(data__knowledge__sm, dict)
                    if data__knowledge__sm_is_dict:
                        data__knowledge__sm_keys = set(data__knowledge__sm.keys())
                        for data__knowledge__sm_key in data__knowledge__sm_keys:
                            if data__knowledge__sm_key not in []:
                                data__knowledge__sm_value = data__knowledge__sm.get(data__knowledge__sm_key)
                                validate____defs_smrow(data__knowledge__sm_value, custom_formats, (name_prefix or "data") + ".knowledge.sm.{data__knowledge__sm_key}".format(**locals()))
                        data__knowledge__sm_len = len(data__knowledge__sm)
                        if data__knowledge__sm_len != 0:
                            data__knowledge__sm_property_names = True
                            for data__knowledge__sm_key in data__knowledge__sm:
                                try:
                                    if isinstance(data__knowledge__sm_key, str):
                                        if not REGEX_PATTERNS['^[a-z0-9][a-z0-9_-]*$'].search(data__knowledge__sm_key):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".knowledge.sm must match pattern ^[a-z0-9][a-z0-9_-]*$")
                                except (JsonSchemaValueException, JsonSchemaValuesException):
                                    data__knowledge__sm_property_names = False
                            if not data__knowledge__sm_property_names:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".knowledge.sm must be named by propertyName definition")
                if "cuda" in data__knowledge_keys:
                    data__knowledge_keys.remove("cuda")
                    data__knowledge__cuda = data__knowledge["cuda"]
                    if not isinstance(data__knowledge__cuda, (dict)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".knowledge.cuda must be object")
                    data__knowledge__cuda_is_dict = isinstance(data__knowledge__cuda, dict)
                    if data__knowledge__cuda_is_dict:
                        data__knowledge__cuda_keys = set(data__knowledge__cuda.keys())
                        for data__knowledge__cuda_key in data__knowledge__cuda_keys:
                            if data__knowledge__cuda_key not in []:
                                data__knowledge__cuda_value = data__knowledge__cuda.get(data__knowledge__cuda_key)
                                validate____defs_cudarow(data__knowledge__cuda_value, custom_formats, (name_prefix or "data") + ".knowledge.cuda.{data__knowledge__cuda_key}".format(**locals()))
                        data__knowledge__cuda_len = len(data__knowledge__cuda)
                        if data__knowledge__cuda_len != 0:
                            data__knowledge__cuda_property_names = True
                            for data__knowledge__cuda_key in data__knowledge__cuda:
                                try:
                                    if isinstance(data__knowledge__cuda_key, str):
                                        if not REGEX_PATTERNS['^[0-9]+\\.[0-9]+$'].search(data__knowledge__cuda_key):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".knowledge.cuda must match pattern ^[0-9]+\\.[0-9]+$")
                                except (JsonSchemaValueException, JsonSchemaValuesException):
                                    data__knowledge__cuda_property_names = False
                            if not data__knowledge__cuda_property_names:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".knowledge.cuda must be named by propertyName definition")
                if "toolkit" in data__knowledge_keys:
                    data__knowledge_keys.remove("toolkit")
                    data__knowledge__toolkit = data__knowledge["toolkit"]
                    if not isinstance(data__knowledge__toolkit, (dict)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".knowledge.toolkit must be object")
                    data__knowledge__toolkit_is_dict = isinstance(data__knowledge__toolkit, dict)
                    if data__knowledge__toolkit_is_dict:
                        data__knowledge__toolkit_keys = set(data__knowledge__toolkit.keys())
                        for data__knowledge__toolkit_key in data__knowledge__toolkit_keys:
                            if data__knowledge__toolkit_key not in []:
                                data__knowledge__toolkit_value = data__knowledge__toolkit.get(data__knowledge__toolkit_key)
                                validate____defs_toolkitrow(data__knowledge__toolkit_value, custom_formats, (name_prefix or "data") + ".knowledge.toolkit.{data__knowledge__toolkit_key}".format(**locals()))
                        data__knowledge__toolkit_len = len(data__knowledge__toolkit)
                        if data__knowledge__toolkit_len != 0:
                            data__knowledge__toolkit_property_names = True
                            for data__knowledge__toolkit_key in data__knowledge__toolkit:
                                try:
                                    if isinstance(data__knowledge__toolkit_key, str):
                                        if not REGEX_PATTERNS['^[0-9]+\\.[0-9]+$'].search(data__knowledge__toolkit_key):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".knowledge.toolkit must match pattern ^[0-9]+\\.[0-9]+$")
                                except (JsonSchemaValueException, JsonSchemaValuesException):
                                    data__knowledge__toolkit_property_names = False
                            if not data__knowledge__toolkit_property_names:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".knowledge.toolkit must be named by propertyName definition")
                if "minor_compat" in data__knowledge_keys:
                    data__knowledge_keys.remove("minor_compat")
                    data__knowledge__minorcompat = data__knowledge["minor_compat"]
                    if not isinstance(data__knowledge__minorcompat, (dict)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".knowledge.minor_compat must be object")
                    data__knowledge__minorcompat_is_dict = isinstance(data__knowledge__minorcompat, dict)
                    if data__knowledge__minorcompat_is_dict:
                        data__knowledge__minorcompat_keys = set(data__knowledge__minorcompat.keys())
                        for data__knowledge__minorcompat_key in data__knowledge__minorcompat_keys:
                            if data__knowledge__minorcompat_key not in []:
                                data__knowledge__minorcompat_value = data__knowledge__minorcompat.get(data__knowledge__minorcompat_key)
                                validate____defs_minorcompatrow(data__knowledge__minorcompat_value, custom_formats, (name_prefix or "data") + ".knowledge.minor_compat.{data__knowledge__minorcompat_key}".format(**locals()))
                        data__knowledge__minorcompat_len = len(data__knowledge__minorcompat)
                        if data__knowledge__minorcompat_len != 0:
                            data__knowledge__minorcompat_property_names = True
                            for data__knowledge__minorcompat_key in data__knowledge__minorcompat:
                                try:
                                    if isinstance(data__knowledge__minorcompat_key, str):
                                        if not REGEX_PATTERNS['^[0-9]+$'].search(data__knowledge__minorcompat_key):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".knowledge.minor_compat must match pattern ^[0-9]+$")
                                except (JsonSchemaValueException, JsonSchemaValuesException):
                                    data__knowledge__minorcompat_property_names = False
                            if not data__knowledge__minorcompat_property_names:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".knowledge.minor_compat must be named by propertyName definition")
                if "python" in data__knowledge_keys:
                    data__knowledge_keys.remove("python")
                    data__knowledge__python = data__knowledge["python"]
                    if not isinstance(data__knowledge__python, (dict)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".knowledge.python must be object")
                    data__knowledge__python_is_dict = isinstance(data__knowledge__python, dict)
                    if data__knowledge__python_is_dict:
                        data__knowledge__python_keys = set(data__knowledge__python.keys())
                        for data__knowledge__python_key in data__knowledge__python_keys:
                            if data__knowledge__python_key not in []:
                                data__knowledge__python_value = data__knowledge__python.get(data__knowledge__python_key)
                                validate____defs_pythonrow(data__knowledge__python_value, custom_formats, (name_prefix or "data") + ".knowledge.python.{data__knowledge__python_key}".format(**locals()))
                        data__knowledge__python_len = len(data__knowledge__python)
                        if data__knowledge__python_len != 0:
                            data__knowledge__python_property_names = True
                            for data__knowledge__python_key in data__knowledge__python:
                                try:
                                    if isinstance(data__knowledge__python_key, str):
                                        if not REGEX_PATTERNS['^[0-9]+\\.[0-9]+$'].search(data__knowledge__python_key):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".knowledge.python must match pattern ^[0-9]+\\.[0-9]+$")
                                except (JsonSchemaValueException, JsonSchemaValuesException):
                                    data__knowledge__python_property_names = False
                            if not data__knowledge__python_property_names:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".knowledge.python must be named by propertyName definition")
                if "isa" in data__knowledge_keys:
                    data__knowledge_keys.remove("isa")
                    data__knowledge__isa = data__knowledge["isa"]
                    if not isinstance(data__knowledge__isa, (dict)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".knowledge.isa must be object")
                    data__knowledge__isa_is_dict = isinstance(data__knowledge__isa, dict)
                    if data__knowledge__isa_is_dict:
                        data__knowledge__isa_keys = set(data__knowledge__isa.keys())
                        for data__knowledge__isa_key in data__knowledge__isa_keys:
                            if data__knowledge__isa_key not in []:
                                data__knowledge__isa_value = data__knowledge__isa.get(data__knowledge__isa_key)
                                validate____defs_isarow(data__knowledge__isa_value, custom_formats, (name_prefix or "data") + ".knowledge.isa.{data__knowledge__isa_key}".format(**locals()))
                        data__knowledge__isa_len = len(data__knowledge__isa)
                        if data__knowledge__isa_len != 0:
                            data__knowledge__isa_property_names = True
                            for data__knowledge__isa_key in data__knowledge__isa:
                                try:
                                    if isinstance(data__knowledge__isa_key, str):
                                        if not REGEX_PATTERNS['^[a-z0-9][a-z0-9_-]*$'].search(data__knowledge__isa_key):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".knowledge.isa must match pattern ^[a-z0-9][a-z0-9_-]*$")
                                except (JsonSchemaValueException, JsonSchemaValuesException):
                                    data__knowledge__isa_property_names = False
                            if not data__knowledge__isa_property_names:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".knowledge.isa must be named by propertyName definition")
                if "accelerator" in data__knowledge_keys:
                    data__knowledge_keys.remove("accelerator")
                    data__knowledge__accelerator = data__knowledge["accelerator"]
                    if not isinstance(data__knowledge__accelerator, (dict)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".knowledge.accelerator must be object")
                    data__knowledge__accelerator_is_dict = isinstance(data__knowledge__accelerator, dict)
                    if data__knowledge__accelerator_is_dict:
                        data__knowledge__accelerator_keys = set(data__knowledge__accelerator.keys())
                        for data__knowledge__accelerator_key in data__knowledge__accelerator_keys:
                            if data__knowledge__accelerator_key not in []:
                                data__knowledge__accelerator_value = data__knowledge__accelerator.get(data__knowledge__accelerator_key)
                                validate____defs_acceleratorrow(data__knowledge__accelerator_value, custom_formats, (name_prefix or "data") + ".knowledge.accelerator.{data__knowledge__accelerator_key}".format(**locals()))
                        data__knowledge__accelerator_len = len(data__knowledge__accelerator)
                        if data__knowledge__accelerator_len != 0:
                            data__knowledge__accelerator_property_names = True
                            for data__knowledge__accelerator_key in data__knowledge__accelerator:
                                try:
                                    if isinstance(data__knowledge__accelerator_key, str):
                                        if not REGEX_PATTERNS['^[a-z0-9][a-z0-9_-]*$'].search(data__knowledge__accelerator_key):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".knowledge.accelerator must match pattern ^[a-z0-9][a-z0-9_-]*$")
                                except (JsonSchemaValueException, JsonSchemaValuesException):
                                    data__knowledge__accelerator_property_names = False
                            if not data__knowledge__accelerator_property_names:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".knowledge.accelerator must be named by propertyName definition")
                if "pytorch" in data__knowledge_keys:
                    data__knowledge_keys.remove("pytorch")
                    data__knowledge__pytorch = data__knowledge["pytorch"]
                    if not isinstance(data__knowledge__pytorch, (dict)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".knowledge.pytorch must be object")
                    data__knowledge__pytorch_is_dict = isinstance(data__knowledge__pytorch, dict)
                    if data__knowledge__pytorch_is_dict:
                        data__knowledge__pytorch_keys = set(data__knowledge__pytorch.keys())
                        for data__knowledge__pytorch_key in data__knowledge__pytorch_keys:
                            if data__knowledge__pytorch_key not in []:
                                data__knowledge__pytorch_value = data__knowledge__pytorch.get(data__knowledge__pytorch_key)
                                validate____defs_releaserow(data__knowledge__pytorch_value, custom_formats, (name_prefix or "data") + ".knowledge.pytorch.{data__knowledge__pytorch_key}".format(**locals()))
                        data__knowledge__pytorch_len = len(data__knowledge__pytorch)
                        if data__knowledge__pytorch_len != 0:
                            data__knowledge__pytorch_property_names = True
                            for data__knowledge__pytorch_key in data__knowledge__pytorch:
                                try:
                                    if isinstance(data__knowledge__pytorch_key, str):
                                        if not REGEX_PATTERNS['^[0-9]+\\.[0-9]+$'].search(data__knowledge__pytorch_key):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".knowledge.pytorch must match pattern ^[0-9]+\\.[0-9]+$")
                                except (JsonSchemaValueException, JsonSchemaValuesException):
                                    data__knowledge__pytorch_property_names = False
                            if not data__knowledge__pytorch_property_names:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".knowledge.pytorch must be named by propertyName definition")
                if "fixes" in data__knowledge_keys:
                    data__knowledge_keys.remove("fixes")
                    data__knowledge__fixes = data__knowledge["fixes"]
                    if not isinstance(data__knowledge__fixes, (dict)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".knowledge.fixes must be object")
                    data__knowledge__fixes_is_dict = isinstance(data__knowledge__fixes, dict)
                    if data__knowledge__fixes_is_dict:
                        data__knowledge__fixes_keys = set(data__knowledge__fixes.keys())
                        for data__knowledge__fixes_key in data__knowledge__fixes_keys:
                            if data__knowledge__fixes_key not in []:
                                data__knowledge__fixes_value = data__knowledge__fixes.get(data__knowledge__fixes_key)
                                validate____defs_fixrow(data__knowledge__fixes_value, custom_formats, (name_prefix or "data") + ".knowledge.fixes.{data__knowledge__fixes_key}".format(**locals()))
                        data__knowledge__fixes_len = len(data__knowledge__fixes)
                        if data__knowledge__fixes_len != 0:
                            data__knowledge__fixes_property_names = True
                            for data__knowledge__fixes_key in data__knowledge__fixes:
                                try:
                                    if isinstance(data__knowledge__fixes_key, str):
                                        if not REGEX_PATTERNS['^[a-z0-9][a-z0-9_-]*$'].search(data__knowledge__fixes_key):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".knowledge.fixes must match pattern ^[a-z0-9][a-z0-9_-]*$")
                                except (JsonSchemaValueException, JsonSchemaValuesException):
                                    data__knowledge__fixes_property_names = False
                            if not data__knowledge__fixes_property_names:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".knowledge.fixes must be named by propertyName definition")
                if "workarounds" in data__knowledge_keys:
                    data__knowledge_keys.remove("workarounds")
                    data__knowledge__workarounds = data__knowledge["workarounds"]
                    if not isinstance(data__knowledge__workarounds, (dict)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".knowledge.workarounds must be object")
                    data__knowledge__workarounds_is_dict = isinstance(data__knowledge__workarounds, dict)
                    if data__knowledge__workarounds_is_dict:
                        data__knowledge__workarounds_keys = set(data__knowledge__workarounds.keys())
                        for data__knowledge__workarounds_key in data__knowledge__workarounds_keys:
                            if data__knowledge__workarounds_key not in []:
                                data__knowledge__workarounds_value = data__knowledge__workarounds.get(data__knowledge__workarounds_key)
                                validate____defs_workaroundrow(data__knowledge__workarounds_value, custom_formats, (name_prefix or "data") + ".knowledge.workarounds.{data__knowledge__workarounds_key}".format(**locals()))
                        data__knowledge__workarounds_len = len(data__knowledge__workarounds)
                        if data__knowledge__workarounds_len != 0:
                            data__knowledge__workarounds_property_names = True
                            for data__knowledge__workarounds_key in data__knowledge__workarounds:
                                try:
                                    if isinstance(data__knowledge__workarounds_key, str):
                                        if not REGEX_PATTERNS['^[a-z0-9][a-z0-9_-]*$'].search(data__knowledge__workarounds_key):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".knowledge.workarounds must match pattern ^[a-z0-9][a-z0-9_-]*$")
                                except (JsonSchemaValueException, JsonSchemaValuesException):
                                    data__knowledge__workarounds_property_names = False
                            if not data__knowledge__workarounds_property_names:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".knowledge.workarounds must be named by propertyName definition")
                if "nixpkgs_off" in data__knowledge_keys:
                    data__knowledge_keys.remove("nixpkgs_off")
                    data__knowledge__nixpkgsoff = data__knowledge["nixpkgs_off"]
                    if not isinstance(data__knowledge__nixpkgsoff, (dict)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".knowledge.nixpkgs_off must be object")
                    data__knowledge__nixpkgsoff_is_dict = isinstance(data__knowledge__nixpkgsoff, dict)
                    if data__knowledge__nixpkgsoff_is_dict:
                        data__knowledge__nixpkgsoff_keys = set(data__knowledge__nixpkgsoff.keys())
                        for data__knowledge__nixpkgsoff_key in data__knowledge__nixpkgsoff_keys:
                            if data__knowledge__nixpkgsoff_key not in []:
                                data__knowledge__nixpkgsoff_value = data__knowledge__nixpkgsoff.get(data__knowledge__nixpkgsoff_key)
                                validate____defs_nixpkgsoffrow(data__knowledge__nixpkgsoff_value, custom_formats, (name_prefix or "data") + ".knowledge.nixpkgs_off.{data__knowledge__nixpkgsoff_key}".format(**locals()))
                if "compile_jobs" in data__knowledge_keys:
                    data__knowledge_keys.remove("compile_jobs")
                    data__knowledge__compilejobs = data__knowledge["compile_jobs"]
                    if not isinstance(data__knowledge__compilejobs, (dict)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".knowledge.compile_jobs must be object")
                    data__knowledge__compilejobs_is_dict = isinstance(data__knowledge__compilejobs, dict)
                    if data__knowledge__compilejobs_is_dict:
                        data__knowledge__compilejobs_keys = set(data__knowledge__compilejobs.keys())
                        for data__knowledge__compilejobs_key in data__knowledge__compilejobs_keys:
                            if data__knowledge__compilejobs_key not in []:
                                data__knowledge__compilejobs_value = data__knowledge__compilejobs.get(data__knowledge__compilejobs_key)
                                validate____defs_compilejobrow(data__knowledge__compilejobs_value, custom_formats, (name_prefix or "data") + ".knowledge.compile_jobs.{data__knowledge__compilejobs_key}".format(**locals()))
                        data__knowledge__compilejobs_len = len(data__knowledge__compilejobs)
                        if data__knowledge__compilejobs_len != 0:
                            data__knowledge__compilejobs_property_names = True
                            for data__knowledge__compilejobs_key in data__knowledge__compilejobs:
                                try:
                                    if not (isinstance(data__knowledge__compilejobs_key, str) and data__knowledge__compilejobs_key == 'cuda' or isinstance(data__knowledge__compilejobs_key, str) and data__knowledge__compilejobs_key == 'cpu'):
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".knowledge.compile_jobs must be one of ['cuda', 'cpu']")
                                except (JsonSchemaValueException, JsonSchemaValuesException):
                                    data__knowledge__compilejobs_property_names = False
                            if not data__knowledge__compilejobs_property_names:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".knowledge.compile_jobs must be named by propertyName definition")
                if "build_costs" in data__knowledge_keys:
                    data__knowledge_keys.remove("build_costs")
                    data__knowledge__buildcosts = data__knowledge["build_costs"]
                    if not isinstance(data__knowledge__buildcosts, (dict)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".knowledge.build_costs must be object")
                    data__knowledge__buildcosts_is_dict = isinstance(data__knowledge__buildcosts, dict)
                    if data__knowledge__buildcosts_is_dict:
                        data__knowledge__buildcosts_keys = set(data__knowledge__buildcosts.keys())
                        for data__knowledge__buildcosts_key in data__knowledge__buildcosts_keys:
                            if data__knowledge__buildcosts_key not in []:
                                data__knowledge__buildcosts_value = data__knowledge__buildcosts.get(data__knowledge__buildcosts_key)
                                validate____defs_buildcostrow(data__knowledge__buildcosts_value, custom_formats, (name_prefix or "data") + ".knowledge.build_costs.{data__knowledge__buildcosts_key}".format(**locals()))
                        data__knowledge__buildcosts_len = len(data__knowledge__buildcosts)
                        if data__knowledge__buildcosts_len != 0:
                            data__knowledge__buildcosts_property_names = True
                            for data__knowledge__buildcosts_key in data__knowledge__buildcosts:
                                try:
                                    if not (isinstance(data__knowledge__buildcosts_key, str) and data__knowledge__buildcosts_key == 'gpu' or isinstance(data__knowledge__buildcosts_key, str) and data__knowledge__buildcosts_key == 'cpu' or isinstance(data__knowledge__buildcosts_key, str) and data__knowledge__buildcosts_key == 'darwin' or isinstance(data__knowledge__buildcosts_key, str) and data__knowledge__buildcosts_key == 'rocm' or isinstance(data__knowledge__buildcosts_key, str) and data__knowledge__buildcosts_key == 'companion' or isinstance(data__knowledge__buildcosts_key, str) and data__knowledge__buildcosts_key == 'wrapper'):
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".knowledge.build_costs must be one of ['gpu', 'cpu', 'darwin', 'rocm', 'companion', 'wrapper']")
                                except (JsonSchemaValueException, JsonSchemaValuesException):
                                    data__knowledge__buildcosts_property_names = False
                            if not data__knowledge__buildcosts_property_names:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".knowledge.build_costs must be named by propertyName definition")
                if "pins" in data__knowledge_keys:
                    data__knowledge_keys.remove("pins")
                    data__knowledge__pins = data__knowledge["pins"]
                    if not isinstance(data__knowledge__pins, (dict)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".knowledge.pins must be object")
                    data__knowledge__pins_is_dict = isinstance(data__knowledge__pins, dict)
                    if data__knowledge__pins_is_dict:
                        data__knowledge__pins_keys = set(data__knowledge__pins.keys())
                        for data__knowledge__pins_key in data__knowledge__pins_keys:
                            if data__knowledge__pins_key not in []:
                                data__knowledge__pins_value = data__knowledge__pins.get(data__knowledge__pins_key)
                                validate____defs_pinfactsrow(data__knowledge__pins_value, custom_formats, (name_prefix or "data") + ".knowledge.pins.{data__knowledge__pins_key}".format(**locals()))
                        data__knowledge__pins_len = len(data__knowledge__pins)
                        if data__knowledge__pins_len != 0:
                            data__knowledge__pins_property_names = True
                            for data__knowledge__pins_key in data__knowledge__pins:
                                try:
                                    if isinstance(data__knowledge__pins_key, str):
                                        if not REGEX_PATTERNS['^[0-9a-f]{40}$'].search(data__knowledge__pins_key):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".knowledge.pins must match pattern ^[0-9a-f]{40}$")
                                except (JsonSchemaValueException, JsonSchemaValuesException):
                                    data__knowledge__pins_property_names = False
                            if not data__knowledge__pins_property_names:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".knowledge.pins must be named by propertyName definition")
                if "other_gpus" in data__knowledge_keys:
                    data__knowledge_keys.remove("other_gpus")
                    data__knowledge__othergpus = data__knowledge["other_gpus"]
                    if not isinstance(data__knowledge__othergpus, (dict)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".knowledge.other_gpus must be object")
                    data__knowledge__othergpus_is_dict = isinstance(data__knowledge__othergpus, dict)
                    if data__knowledge__othergpus_is_dict:
                        data__knowledge__othergpus_keys = set(data__knowledge__othergpus.keys())
                        for data__knowledge__othergpus_key in data__knowledge__othergpus_keys:
                            if data__knowledge__othergpus_key not in []:
                                data__knowledge__othergpus_value = data__knowledge__othergpus.get(data__knowledge__othergpus_key)
                                validate____defs_othergpurow(data__knowledge__othergpus_value, custom_formats, (name_prefix or "data") + ".knowledge.other_gpus.{data__knowledge__othergpus_key}".format(**locals()))
                        data__knowledge__othergpus_len = len(data__knowledge__othergpus)
                        if data__knowledge__othergpus_len != 0:
                            data__knowledge__othergpus_property_names = True
                            for data__knowledge__othergpus_key in data__knowledge__othergpus:
                                try:
                                    if isinstance(data__knowledge__othergpus_key, str):
                                        if not REGEX_PATTERNS['^[a-z0-9][a-z0-9_-]*$'].search(data__knowledge__othergpus_key):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".knowledge.other_gpus must match pattern ^[a-z0-9][a-z0-9_-]*$")
                                except (JsonSchemaValueException, JsonSchemaValuesException):
                                    data__knowledge__othergpus_property_names = False
                            if not data__knowledge__othergpus_property_names:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".knowledge.other_gpus must be named by propertyName definition")
                if "other_wheels" in data__knowledge_keys:
                    data__knowledge_keys.remove("other_wheels")
                    data__knowledge__otherwheels = data__knowledge["other_wheels"]
                    if not isinstance(data__knowledge__otherwheels, (dict)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".knowledge.other_wheels must be object")
                    data__knowledge__otherwheels_is_dict = isinstance(data__knowledge__otherwheels, dict)
                    if data__knowledge__otherwheels_is_dict:
                        data__knowledge__otherwheels_keys = set(data__knowledge__otherwheels.keys())
                        for data__knowledge__otherwheels_key in data__knowledge__otherwheels_keys:
                            if data__knowledge__otherwheels_key not in []:
                                data__knowledge__otherwheels_value = data__knowledge__otherwheels.get(data__knowledge__otherwheels_key)
                                validate____defs_otherwheelsrow(data__knowledge__otherwheels_value, custom_formats, (name_prefix or "data") + ".knowledge.other_wheels.{data__knowledge__otherwheels_key}".format(**locals()))
                        data__knowledge__otherwheels_len = len(data__knowledge__otherwheels)
                        if data__knowledge__otherwheels_len != 0:
                            data__knowledge__otherwheels_property_names = True
                            for data__knowledge__otherwheels_key in data__knowledge__otherwheels:
                                try:
                                    if isinstance(data__knowledge__otherwheels_key, str):
                                        if not REGEX_PATTERNS['^[0-9]+\\.[0-9]+$'].search(data__knowledge__otherwheels_key):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".knowledge.other_wheels must match pattern ^[0-9]+\\.[0-9]+$")
                                except (JsonSchemaValueException, JsonSchemaValuesException):
                                    data__knowledge__otherwheels_property_names = False
                            if not data__knowledge__otherwheels_property_names:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".knowledge.other_wheels must be named by propertyName definition")
                if "rocm" in data__knowledge_keys:
                    data__knowledge_keys.remove("rocm")
                    data__knowledge__rocm = data__knowledge["rocm"]
                    if not isinstance(data__knowledge__rocm, (dict)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".knowledge.rocm must be object")
                    data__knowledge__rocm_is_dict = isinstance(data__knowledge__rocm, dict)
                    if data__knowledge__rocm_is_dict:
                        data__knowledge__rocm_keys = set(data__knowledge__rocm.keys())
                        for data__knowledge__rocm_key in data__knowledge__rocm_keys:
                            if data__knowledge__rocm_key not in []:
                                data__knowledge__rocm_value = data__knowledge__rocm.get(data__knowledge__rocm_key)
                                validate____defs_rocmrow(data__knowledge__rocm_value, custom_formats, (name_prefix or "data") + ".knowledge.rocm.{data__knowledge__rocm_key}".format(**locals()))
                        data__knowledge__rocm_len = len(data__knowledge__rocm)
                        if data__knowledge__rocm_len != 0:
                            data__knowledge__rocm_property_names = True
                            for data__knowledge__rocm_key in data__knowledge__rocm:
                                try:
                                    if isinstance(data__knowledge__rocm_key, str):
                                        if not REGEX_PATTERNS['^[0-9]+\\.[0-9]+$'].search(data__knowledge__rocm_key):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".knowledge.rocm must match pattern ^[0-9]+\\.[0-9]+$")
                                except (JsonSchemaValueException, JsonSchemaValuesException):
                                    data__knowledge__rocm_property_names = False
                            if not data__knowledge__rocm_property_names:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".knowledge.rocm must be named by propertyName definition")
                if data__knowledge_keys:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".knowledge must not contain "+str(data__knowledge_keys)+" properties")
        if "ci" in data_keys:
            data_keys.remove("ci")
            data__ci = data["ci"]
            if not isinstance(data__ci, (dict)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci must be object")
            data__ci_is_dict = isinstance(data__ci, dict)
            if data__ci_is_dict:
                data__ci_keys = set(data__ci.keys())
                if "organisation_variable" in data__ci_keys:
                    data__ci_keys.remove("organisation_variable")
                    data__ci__organisationvariable = data__ci["organisation_variable"]
                    if not isinstance(data__ci__organisationvariable, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.organisation_variable must be string")
                    if isinstance(data__ci__organisationvariable, str):
                        if not REGEX_PATTERNS['^(?![Gg][Ii][Tt][Hh][Uu][Bb]_)[A-Za-z_][A-Za-z0-9_]*$'].search(data__ci__organisationvariable):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.organisation_variable must match pattern ^(?![Gg][Ii][Tt][Hh][Uu][Bb]_)[A-Za-z_][A-Za-z0-9_]*$")
                if "organisation" in data__ci_keys:
                    data__ci_keys.remove("organisation")
                    data__ci__organisation = data__ci["organisation"]
                    data__ci__organisation_one_of_count6 = 0
                    if data__ci__organisation_one_of_count6 < 2:
                        try:
                            if not isinstance(data__ci__organisation, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.organisation must be string")
                            if isinstance(data__ci__organisation, str):
                                if not REGEX_PATTERNS['^[A-Za-z0-9][A-Za-z0-9_-]*$'].search(data__ci__organisation):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.organisation must match pattern ^[A-Za-z0-9][A-Za-z0-9_-]*$")
                            data__ci__organisation_one_of_count6 += 1
                        except (JsonSchemaValueException, JsonSchemaValuesException): pass
                    if data__ci__organisation_one_of_count6 < 2:
                        try:
                            if not isinstance(data__ci__organisation, (NoneType)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.organisation must be null")
                            data__ci__organisation_one_of_count6 += 1
                        except (JsonSchemaValueException, JsonSchemaValuesException): pass
                    if data__ci__organisation_one_of_count6 != 1:
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.organisation must be valid exactly by one definition")
                if "main_branch" in data__ci_keys:
                    data__ci_keys.remove("main_branch")
                    data__ci__mainbranch = data__ci["main_branch"]
                    if not isinstance(data__ci__mainbranch, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.main_branch must be string")
                    if isinstance(data__ci__mainbranch, str):
                        if not REGEX_PATTERNS['^[A-Za-z0-9][A-Za-z0-9._/+@-]*$'].search(data__ci__mainbranch):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.main_branch must match pattern ^[A-Za-z0-9][A-Za-z0-9._/+@-]*$")
                if "timeout_minutes" in data__ci_keys:
                    data__ci_keys.remove("timeout_minutes")
                    data__ci__timeoutminutes = data__ci["timeout_minutes"]
                    if not isinstance(data__ci__timeoutminutes, (int)) and not (isinstance(data__ci__timeoutminutes, float) and data__ci__timeoutminutes.is_integer()) or isinstance(data__ci__timeoutminutes, bool):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.timeout_minutes must be integer")
                    if isinstance(data__ci__timeoutminutes, (int, float, Decimal)) and not isinstance(data__ci__timeoutminutes, bool):
                        if data__ci__timeoutminutes < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.timeout_minutes must be bigger than or equal to 1")
                        if data__ci__timeoutminutes > 7200:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.timeout_minutes must be smaller than or equal to 7200")
                if "gen_matrix" in data__ci_keys:
                    data__ci_keys.remove("gen_matrix")
                    data__ci__genmatrix = data__ci["gen_matrix"]
                    if not isinstance(data__ci__genmatrix, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.gen_matrix must be string")
                    if isinstance(data__ci__genmatrix, str):
                        data__ci__genmatrix_len = len(data__ci__genmatrix)
                        if data__ci__genmatrix_len < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.gen_matrix must be longer than or equal to 1 characters")
                        if data__ci__genmatrix_len > 500:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.gen_matrix must be shorter than or equal to 500 characters")
                        if not REGEX_PATTERNS['^(?:(?:github|gitlab|sourcehut):[A-Za-z0-9_.~-]+/[A-Za-z0-9_.-]+/[0-9a-f]{40}|git\\+https://[A-Za-z0-9.-]+(?::[0-9]+)?(?:/[A-Za-z0-9_.~-]+)+\\?(?:ref=[A-Za-z0-9_./-]+&)?rev=[0-9a-f]{40})$'].search(data__ci__genmatrix):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.gen_matrix must match pattern ^(?:(?:github|gitlab|sourcehut):[A-Za-z0-9_.~-]+/[A-Za-z0-9_.-]+/[0-9a-f]{40}|git\\+https://[A-Za-z0-9.-]+(?::[0-9]+)?(?:/[A-Za-z0-9_.~-]+)+\\?(?:ref=[A-Za-z0-9_./-]+&)?rev=[0-9a-f]{40})$")
                if "shard_size" in data__ci_keys:
                    data__ci_keys.remove("shard_size")
                    data__ci__shardsize = data__ci["shard_size"]
                    if not isinstance(data__ci__shardsize, (int)) and not (isinstance(data__ci__shardsize, float) and data__ci__shardsize.is_integer()) or isinstance(data__ci__shardsize, bool):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.shard_size must be integer")
                    if isinstance(data__ci__shardsize, (int, float, Decimal)) and not isinstance(data__ci__shardsize, bool):
                        if data__ci__shardsize < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.shard_size must be bigger than or equal to 1")
                        if data__ci__shardsize > 256:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.shard_size must be smaller than or equal to 256")
                if "plan_runner" in data__ci_keys:
                    data__ci_keys.remove("plan_runner")
                    data__ci__planrunner = data__ci["plan_runner"]
                    validate____defs_runnerlabels(data__ci__planrunner, custom_formats, (name_prefix or "data") + ".ci.plan_runner")
                if "runners" in data__ci_keys:
                    data__ci_keys.remove("runners")
                    data__ci__runners = data__ci["runners"]
                    if not isinstance(data__ci__runners, (dict)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.runners must be object")
                    data__ci__runners_is_dict = isinstance(data__ci__runners, dict)
                    if data__ci__runners_is_dict:
                        data__ci__runners_keys = set(data__ci__runners.keys())
                        if "x86_64-linux" in data__ci__runners_keys:
                            data__ci__runners_keys.remove("x86_64-linux")
                            data__ci__runners__x8664linux = data__ci__runners["x86_64-linux"]
                            validate____defs_runnerlabels(data__ci__runners__x8664linux, custom_formats, (name_prefix or "data") + ".ci.runners.x86_64-linux")
                        if "aarch64-linux" in data__ci__runners_keys:
                            data__ci__runners_keys.remove("aarch64-linux")
                            data__ci__runners__aarch64linux = data__ci__runners["aarch64-linux"]
                            validate____defs_runnerlabels(data__ci__runners__aarch64linux, custom_formats, (name_prefix or "data") + ".ci.runners.aarch64-linux")
                        if "x86_64-darwin" in data__ci__runners_keys:
                            data__ci__runners_keys.remove("x86_64-darwin")
                            data__ci__runners__x8664darwin = data__ci__runners["x86_64-darwin"]
                            validate____defs_runnerlabels(data__ci__runners__x8664darwin, custom_formats, (name_prefix or "data") + ".ci.runners.x86_64-darwin")
                        if "aarch64-darwin" in data__ci__runners_keys:
                            data__ci__runners_keys.remove("aarch64-darwin")
                            data__ci__runners__aarch64darwin = data__ci__runners["aarch64-darwin"]
                            validate____defs_runnerlabels(data__ci__runners__aarch64darwin, custom_formats, (name_prefix or "data") + ".ci.runners.aarch64-darwin")
                        if data__ci__runners_keys:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.runners must not contain "+str(data__ci__runners_keys)+" properties")
                if "gpu_runners" in data__ci_keys:
                    data__ci_keys.remove("gpu_runners")
                    data__ci__gpurunners = data__ci["gpu_runners"]
                    if not isinstance(data__ci__gpurunners, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.gpu_runners must be array")
                    data__ci__gpurunners_is_list = isinstance(data__ci__gpurunners, (list, tuple))
                    if data__ci__gpurunners_is_list:
                        data__ci__gpurunners_len = len(data__ci__gpurunners)
                        for data__ci__gpurunners_x, data__ci__gpurunners_item in enumerate(data__ci__gpurunners):
                            if not isinstance(data__ci__gpurunners_item, (dict)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.gpu_runners[{data__ci__gpurunners_x}]".format(**locals()) + " must be object")
                            data__ci__gpurunners_item_any_of_count7 = 0
                            if not data__ci__gpurunners_item_any_of_count7:
                                try:
                                    data__ci__gpurunners_item_is_dict = isinstance(data__ci__gpurunners_item, dict)
                                    if data__ci__gpurunners_item_is_dict:
                                        data__ci__gpurunners_item__missing_keys = set(['sm']) - data__ci__gpurunners_item.keys()
                                        if data__ci__gpurunners_item__missing_keys:
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.gpu_runners[{data__ci__gpurunners_x}]".format(**locals()) + " must contain ")
                                    data__ci__gpurunners_item_any_of_count7 += 1
                                except (JsonSchemaValueException, JsonSchemaValuesException): pass
                            if not data__ci__gpurunners_item_any_of_count7:
                                try:
                                    data__ci__gpurunners_item_is_dict = isinstance(data__ci__gpurunners_item, dict)
                                    if data__ci__gpurunners_item_is_dict:
                                        data__ci__gpurunners_item__missing_keys = set(['gfx']) - data__ci__gpurunners_item.keys()
                                        if data__ci__gpurunners_item__missing_keys:
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.gpu_runners[{data__ci__gpurunners_x}]".format(**locals()) + " must contain ")
                                    data__ci__gpurunners_item_any_of_count7 += 1
                                except (JsonSchemaValueException, JsonSchemaValuesException): pass
                            if not data__ci__gpurunners_item_any_of_count7:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.gpu_runners[{data__ci__gpurunners_x}]".format(**locals()) + " cannot be validated by any definition")
                            data__ci__gpurunners_item_is_dict = isinstance(data__ci__gpurunners_item, dict)
                            if data__ci__gpurunners_item_is_dict:
                                data__ci__gpurunners_item__missing_keys = set(['labels', 'system']) - data__ci__gpurunners_item.keys()
                                if data__ci__gpurunners_item__missing_keys:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.gpu_runners[{data__ci__gpurunners_x}]".format(**locals()) + " must contain ")
                                data__ci__gpurunners_item_keys = set(data__ci__gpurunners_item.keys())
                                if "labels" in data__ci__gpurunners_item_keys:
                                    data__ci__gpurunners_item_keys.remove("labels")
                                    data__ci__gpurunners_item__labels = data__ci__gpurunners_item["labels"]
                                    validate____defs_runnerlabels(data__ci__gpurunners_item__labels, custom_formats, (name_prefix or "data") + ".ci.gpu_runners[{data__ci__gpurunners_x}].labels".format(**locals()))
                                if "system" in data__ci__gpurunners_item_keys:
                                    data__ci__gpurunners_item_keys.remove("system")
                                    data__ci__gpurunners_item__system = data__ci__gpurunners_item["system"]
                                    if not (isinstance(data__ci__gpurunners_item__system, str) and data__ci__gpurunners_item__system == 'x86_64-linux' or isinstance(data__ci__gpurunners_item__system, str) and data__ci__gpurunners_item__system == 'aarch64-linux'):
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.gpu_runners[{data__ci__gpurunners_x}].system".format(**locals()) + " must be one of ['x86_64-linux', 'aarch64-linux']")
                                if "sm" in data__ci__gpurunners_item_keys:
                                    data__ci__gpurunners_item_keys.remove("sm")
                                    data__ci__gpurunners_item__sm = data__ci__gpurunners_item["sm"]
                                    if not isinstance(data__ci__gpurunners_item__sm, (list, tuple)):
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.gpu_runners[{data__ci__gpurunners_x}].sm".format(**locals()) + " must be array")
                                    data__ci__gpurunners_item__sm_is_list = isinstance(data__ci__gpurunners_item__sm, (list, tuple))
                                    if data__ci__gpurunners_item__sm_is_list:
                                        data__ci__gpurunners_item__sm_len = len(data__ci__gpurunners_item__sm)
                                        if data__ci__gpurunners_item__sm_len < 1:
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.gpu_runners[{data__ci__gpurunners_x}].sm".format(**locals()) + " must contain at least 1 items")
                                        def fn(var): return frozenset(dict((k, fn(v)) for k, v in var.items()).items()) if hasattr(var, "items") else tuple(fn(v) for v in var) if isinstance(var, (dict, list)) else (bool, var) if isinstance(var, bool) else var
                                        if data__ci__gpurunners_item__sm_len > len(set(fn(data__ci__gpurunners_item__sm_x) for data__ci__gpurunners_item__sm_x in data__ci__gpurunners_item__sm)):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.gpu_runners[{data__ci__gpurunners_x}].sm".format(**locals()) + " must contain unique items")
                                        for data__ci__gpurunners_item__sm_x, data__ci__gpurunners_item__sm_item in enumerate(data__ci__gpurunners_item__sm):
                                            if not isinstance(data__ci__gpurunners_item__sm_item, (str)):
                                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.gpu_runners[{data__ci__gpurunners_x}].sm[{data__ci__gpurunners_item__sm_x}]".format(**locals()) + " must be string")
                                if "gfx" in data__ci__gpurunners_item_keys:
                                    data__ci__gpurunners_item_keys.remove("gfx")
                                    data__ci__gpurunners_item__gfx = data__ci__gpurunners_item["gfx"]
                                    if not isinstance(data__ci__gpurunners_item__gfx, (list, tuple)):
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.gpu_runners[{data__ci__gpurunners_x}].gfx".format(**locals()) + " must be array")
                                    data__ci__gpurunners_item__gfx_is_list = isinstance(data__ci__gpurunners_item__gfx, (list, tuple))
                                    if data__ci__gpurunners_item__gfx_is_list:
                                        data__ci__gpurunners_item__gfx_len = len(data__ci__gpurunners_item__gfx)
                                        if data__ci__gpurunners_item__gfx_len < 1:
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.gpu_runners[{data__ci__gpurunners_x}].gfx".format(**locals()) + " must contain at least 1 items")
                                        def fn(var): return frozenset(dict((k, fn(v)) for k, v in var.items()).items()) if hasattr(var, "items") else tuple(fn(v) for v in var) if isinstance(var, (dict, list)) else (bool, var) if isinstance(var, bool) else var
                                        if data__ci__gpurunners_item__gfx_len > len(set(fn(data__ci__gpurunners_item__gfx_x) for data__ci__gpurunners_item__gfx_x in data__ci__gpurunners_item__gfx)):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.gpu_runners[{data__ci__gpurunners_x}].gfx".format(**locals()) + " must contain unique items")
                                        for data__ci__gpurunners_item__gfx_x, data__ci__gpurunners_item__gfx_item in enumerate(data__ci__gpurunners_item__gfx):
                                            if not isinstance(data__ci__gpurunners_item__gfx_item, (str)):
                                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.gpu_runners[{data__ci__gpurunners_x}].gfx[{data__ci__gpurunners_item__gfx_x}]".format(**locals()) + " must be string")
                                if data__ci__gpurunners_item_keys:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.gpu_runners[{data__ci__gpurunners_x}]".format(**locals()) + " must not contain "+str(data__ci__gpurunners_item_keys)+" properties")
                if "kind_runners" in data__ci_keys:
                    data__ci_keys.remove("kind_runners")
                    data__ci__kindrunners = data__ci["kind_runners"]
                    if not isinstance(data__ci__kindrunners, (dict)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.kind_runners must be object")
                    data__ci__kindrunners_is_dict = isinstance(data__ci__kindrunners, dict)
                    if data__ci__kindrunners_is_dict:
                        data__ci__kindrunners_keys = set(data__ci__kindrunners.keys())
                        if "gpu" in data__ci__kindrunners_keys:
                            data__ci__kindrunners_keys.remove("gpu")
                            data__ci__kindrunners__gpu = data__ci__kindrunners["gpu"]
                            if not isinstance(data__ci__kindrunners__gpu, (dict)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.kind_runners.gpu must be object")
                            data__ci__kindrunners__gpu_is_dict = isinstance(data__ci__kindrunners__gpu, dict)
                            if data__ci__kindrunners__gpu_is_dict:
                                data__ci__kindrunners__gpu_keys = set(data__ci__kindrunners__gpu.keys())
                                if "x86_64-linux" in data__ci__kindrunners__gpu_keys:
                                    data__ci__kindrunners__gpu_keys.remove("x86_64-linux")
                                    data__ci__kindrunners__gpu__x8664linux = data__ci__kindrunners__gpu["x86_64-linux"]
                                    validate____defs_runnerlabels(data__ci__kindrunners__gpu__x8664linux, custom_formats, (name_prefix or "data") + ".ci.kind_runners.gpu.x86_64-linux")
                                if "aarch64-linux" in data__ci__kindrunners__gpu_keys:
                                    data__ci__kindrunners__gpu_keys.remove("aarch64-linux")
                                    data__ci__kindrunners__gpu__aarch64linux = data__ci__kindrunners__gpu["aarch64-linux"]
                                    validate____defs_runnerlabels(data__ci__kindrunners__gpu__aarch64linux, custom_formats, (name_prefix or "data") + ".ci.kind_runners.gpu.aarch64-linux")
                                if "x86_64-darwin" in data__ci__kindrunners__gpu_keys:
                                    data__ci__kindrunners__gpu_keys.remove("x86_64-darwin")
                                    data__ci__kindrunners__gpu__x8664darwin = data__ci__kindrunners__gpu["x86_64-darwin"]
                                    validate____defs_runnerlabels(data__ci__kindrunners__gpu__x8664darwin, custom_formats, (name_prefix or "data") + ".ci.kind_runners.gpu.x86_64-darwin")
                                if "aarch64-darwin" in data__ci__kindrunners__gpu_keys:
                                    data__ci__kindrunners__gpu_keys.remove("aarch64-darwin")
                                    data__ci__kindrunners__gpu__aarch64darwin = data__ci__kindrunners__gpu["aarch64-darwin"]
                                    validate____defs_runnerlabels(data__ci__kindrunners__gpu__aarch64darwin, custom_formats, (name_prefix or "data") + ".ci.kind_runners.gpu.aarch64-darwin")
                                if data__ci__kindrunners__gpu_keys:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.kind_runners.gpu must not contain "+str(data__ci__kindrunners__gpu_keys)+" properties")
                        if "cpu" in data__ci__kindrunners_keys:
                            data__ci__kindrunners_keys.remove("cpu")
                            data__ci__kindrunners__cpu = data__ci__kindrunners["cpu"]
                            if not isinstance(data__ci__kindrunners__cpu, (dict)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.kind_runners.cpu must be object")
                            data__ci__kindrunners__cpu_is_dict = isinstance(data__ci__kindrunners__cpu, dict)
                            if data__ci__kindrunners__cpu_is_dict:
                                data__ci__kindrunners__cpu_keys = set(data__ci__kindrunners__cpu.keys())
                                if "x86_64-linux" in data__ci__kindrunners__cpu_keys:
                                    data__ci__kindrunners__cpu_keys.remove("x86_64-linux")
                                    data__ci__kindrunners__cpu__x8664linux = data__ci__kindrunners__cpu["x86_64-linux"]
                                    validate____defs_runnerlabels(data__ci__kindrunners__cpu__x8664linux, custom_formats, (name_prefix or "data") + ".ci.kind_runners.cpu.x86_64-linux")
                                if "aarch64-linux" in data__ci__kindrunners__cpu_keys:
                                    data__ci__kindrunners__cpu_keys.remove("aarch64-linux")
                                    data__ci__kindrunners__cpu__aarch64linux = data__ci__kindrunners__cpu["aarch64-linux"]
                                    validate____defs_runnerlabels(data__ci__kindrunners__cpu__aarch64linux, custom_formats, (name_prefix or "data") + ".ci.kind_runners.cpu.aarch64-linux")
                                if "x86_64-darwin" in data__ci__kindrunners__cpu_keys:
                                    data__ci__kindrunners__cpu_keys.remove("x86_64-darwin")
                                    data__ci__kindrunners__cpu__x8664darwin = data__ci__kindrunners__cpu["x86_64-darwin"]
                                    validate____defs_runnerlabels(data__ci__kindrunners__cpu__x8664darwin, custom_formats, (name_prefix or "data") + ".ci.kind_runners.cpu.x86_64-darwin")
                                if "aarch64-darwin" in data__ci__kindrunners__cpu_keys:
                                    data__ci__kindrunners__cpu_keys.remove("aarch64-darwin")
                                    data__ci__kindrunners__cpu__aarch64darwin = data__ci__kindrunners__cpu["aarch64-darwin"]
                                    validate____defs_runnerlabels(data__ci__kindrunners__cpu__aarch64darwin, custom_formats, (name_prefix or "data") + ".ci.kind_runners.cpu.aarch64-darwin")
                                if data__ci__kindrunners__cpu_keys:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.kind_runners.cpu must not contain "+str(data__ci__kindrunners__cpu_keys)+" properties")
                        if "darwin" in data__ci__kindrunners_keys:
                            data__ci__kindrunners_keys.remove("darwin")
                            data__ci__kindrunners__darwin = data__ci__kindrunners["darwin"]
                            if not isinstance(data__ci__kindrunners__darwin, (dict)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.kind_runners.darwin must be object")
                            data__ci__kindrunners__darwin_is_dict = isinstance(data__ci__kindrunners__darwin, dict)
                            if data__ci__kindrunners__darwin_is_dict:
                                data__ci__kindrunners__darwin_keys = set(data__ci__kindrunners__darwin.keys())
                                if "x86_64-linux" in data__ci__kindrunners__darwin_keys:
                                    data__ci__kindrunners__darwin_keys.remove("x86_64-linux")
                                    data__ci__kindrunners__darwin__x8664linux = data__ci__kindrunners__darwin["x86_64-linux"]
                                    validate____defs_runnerlabels(data__ci__kindrunners__darwin__x8664linux, custom_formats, (name_prefix or "data") + ".ci.kind_runners.darwin.x86_64-linux")
                                if "aarch64-linux" in data__ci__kindrunners__darwin_keys:
                                    data__ci__kindrunners__darwin_keys.remove("aarch64-linux")
                                    data__ci__kindrunners__darwin__aarch64linux = data__ci__kindrunners__darwin["aarch64-linux"]
                                    validate____defs_runnerlabels(data__ci__kindrunners__darwin__aarch64linux, custom_formats, (name_prefix or "data") + ".ci.kind_runners.darwin.aarch64-linux")
                                if "x86_64-darwin" in data__ci__kindrunners__darwin_keys:
                                    data__ci__kindrunners__darwin_keys.remove("x86_64-darwin")
                                    data__ci__kindrunners__darwin__x8664darwin = data__ci__kindrunners__darwin["x86_64-darwin"]
                                    validate____defs_runnerlabels(data__ci__kindrunners__darwin__x8664darwin, custom_formats, (name_prefix or "data") + ".ci.kind_runners.darwin.x86_64-darwin")
                                if "aarch64-darwin" in data__ci__kindrunners__darwin_keys:
                                    data__ci__kindrunners__darwin_keys.remove("aarch64-darwin")
                                    data__ci__kindrunners__darwin__aarch64darwin = data__ci__kindrunners__darwin["aarch64-darwin"]
                                    validate____defs_runnerlabels(data__ci__kindrunners__darwin__aarch64darwin, custom_formats, (name_prefix or "data") + ".ci.kind_runners.darwin.aarch64-darwin")
                                if data__ci__kindrunners__darwin_keys:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.kind_runners.darwin must not contain "+str(data__ci__kindrunners__darwin_keys)+" properties")
                        if "rocm" in data__ci__kindrunners_keys:
                            data__ci__kindrunners_keys.remove("rocm")
                            data__ci__kindrunners__rocm = data__ci__kindrunners["rocm"]
                            if not isinstance(data__ci__kindrunners__rocm, (dict)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.kind_runners.rocm must be object")
                            data__ci__kindrunners__rocm_is_dict = isinstance(data__ci__kindrunners__rocm, dict)
                            if data__ci__kindrunners__rocm_is_dict:
                                data__ci__kindrunners__rocm_keys = set(data__ci__kindrunners__rocm.keys())
                                if "x86_64-linux" in data__ci__kindrunners__rocm_keys:
                                    data__ci__kindrunners__rocm_keys.remove("x86_64-linux")
                                    data__ci__kindrunners__rocm__x8664linux = data__ci__kindrunners__rocm["x86_64-linux"]
                                    validate____defs_runnerlabels(data__ci__kindrunners__rocm__x8664linux, custom_formats, (name_prefix or "data") + ".ci.kind_runners.rocm.x86_64-linux")
                                if data__ci__kindrunners__rocm_keys:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.kind_runners.rocm must not contain "+str(data__ci__kindrunners__rocm_keys)+" properties")
                        if data__ci__kindrunners_keys:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.kind_runners must not contain "+str(data__ci__kindrunners_keys)+" properties")
                if "cache" in data__ci_keys:
                    data__ci_keys.remove("cache")
                    data__ci__cache = data__ci["cache"]
                    if not isinstance(data__ci__cache, (dict)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.cache must be object")
                    data__ci__cache_is_dict = isinstance(data__ci__cache, dict)
                    if data__ci__cache_is_dict:
                        data__ci__cache__missing_keys = set(['type']) - data__ci__cache.keys()
                        if data__ci__cache__missing_keys:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.cache must contain ")
                        data__ci__cache_keys = set(data__ci__cache.keys())
                        if "type" in data__ci__cache_keys:
                            data__ci__cache_keys.remove("type")
                            data__ci__cache__type = data__ci__cache["type"]
                            if not (isinstance(data__ci__cache__type, str) and data__ci__cache__type == 'cachix' or isinstance(data__ci__cache__type, str) and data__ci__cache__type == 'attic' or isinstance(data__ci__cache__type, str) and data__ci__cache__type == 's3' or isinstance(data__ci__cache__type, str) and data__ci__cache__type == 'flox'):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.cache.type must be one of ['cachix', 'attic', 's3', 'flox']")
                        if "substituter" in data__ci__cache_keys:
                            data__ci__cache_keys.remove("substituter")
                            data__ci__cache__substituter = data__ci__cache["substituter"]
                            if not isinstance(data__ci__cache__substituter, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.cache.substituter must be string")
                            if isinstance(data__ci__cache__substituter, str):
                                if not REGEX_PATTERNS['^(https?|s3)://\\S+$'].search(data__ci__cache__substituter):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.cache.substituter must match pattern ^(https?|s3)://\\S+$")
                        if "public_key" in data__ci__cache_keys:
                            data__ci__cache_keys.remove("public_key")
                            data__ci__cache__publickey = data__ci__cache["public_key"]
                            if not isinstance(data__ci__cache__publickey, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.cache.public_key must be string")
                            if isinstance(data__ci__cache__publickey, str):
                                if not REGEX_PATTERNS['^\\S+:\\S+$'].search(data__ci__cache__publickey):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.cache.public_key must match pattern ^\\S+:\\S+$")
                        if "name" in data__ci__cache_keys:
                            data__ci__cache_keys.remove("name")
                            data__ci__cache__name = data__ci__cache["name"]
                            if not isinstance(data__ci__cache__name, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.cache.name must be string")
                            if isinstance(data__ci__cache__name, str):
                                if not REGEX_PATTERNS['^[A-Za-z0-9][A-Za-z0-9._:/?&=+-]*$'].search(data__ci__cache__name):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.cache.name must match pattern ^[A-Za-z0-9][A-Za-z0-9._:/?&=+-]*$")
                        if "secret" in data__ci__cache_keys:
                            data__ci__cache_keys.remove("secret")
                            data__ci__cache__secret = data__ci__cache["secret"]
                            if not isinstance(data__ci__cache__secret, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.cache.secret must be string")
                            if isinstance(data__ci__cache__secret, str):
                                if not REGEX_PATTERNS['^(?![Gg][Ii][Tt][Hh][Uu][Bb]_)[A-Za-z_][A-Za-z0-9_]*$'].search(data__ci__cache__secret):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.cache.secret must match pattern ^(?![Gg][Ii][Tt][Hh][Uu][Bb]_)[A-Za-z_][A-Za-z0-9_]*$")
                        if data__ci__cache_keys:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.cache must not contain "+str(data__ci__cache_keys)+" properties")
                if "substituters" in data__ci_keys:
                    data__ci_keys.remove("substituters")
                    data__ci__substituters = data__ci["substituters"]
                    if not isinstance(data__ci__substituters, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.substituters must be array")
                    data__ci__substituters_is_list = isinstance(data__ci__substituters, (list, tuple))
                    if data__ci__substituters_is_list:
                        data__ci__substituters_len = len(data__ci__substituters)
                        if data__ci__substituters_len > 16:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.substituters must contain less than or equal to 16 items")
                        for data__ci__substituters_x, data__ci__substituters_item in enumerate(data__ci__substituters):
                            if not isinstance(data__ci__substituters_item, (dict)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.substituters[{data__ci__substituters_x}]".format(**locals()) + " must be object")
                            data__ci__substituters_item_is_dict = isinstance(data__ci__substituters_item, dict)
                            if data__ci__substituters_item_is_dict:
                                data__ci__substituters_item__missing_keys = set(['url', 'key']) - data__ci__substituters_item.keys()
                                if data__ci__substituters_item__missing_keys:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.substituters[{data__ci__substituters_x}]".format(**locals()) + " must contain ")
                                data__ci__substituters_item_keys = set(data__ci__substituters_item.keys())
                                if "url" in data__ci__substituters_item_keys:
                                    data__ci__substituters_item_keys.remove("url")
                                    data__ci__substituters_item__url = data__ci__substituters_item["url"]
                                    if not isinstance(data__ci__substituters_item__url, (str)):
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.substituters[{data__ci__substituters_x}].url".format(**locals()) + " must be string")
                                    if isinstance(data__ci__substituters_item__url, str):
                                        if not REGEX_PATTERNS['^https://[A-Za-z0-9.-]+(:[0-9]+)?(/[A-Za-z0-9._~/-]*)?$'].search(data__ci__substituters_item__url):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.substituters[{data__ci__substituters_x}].url".format(**locals()) + " must match pattern ^https://[A-Za-z0-9.-]+(:[0-9]+)?(/[A-Za-z0-9._~/-]*)?$")
                                if "key" in data__ci__substituters_item_keys:
                                    data__ci__substituters_item_keys.remove("key")
                                    data__ci__substituters_item__key = data__ci__substituters_item["key"]
                                    if not isinstance(data__ci__substituters_item__key, (str)):
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.substituters[{data__ci__substituters_x}].key".format(**locals()) + " must be string")
                                    if isinstance(data__ci__substituters_item__key, str):
                                        if not REGEX_PATTERNS['^[A-Za-z0-9._-]+:[A-Za-z0-9+/]{43}=$'].search(data__ci__substituters_item__key):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.substituters[{data__ci__substituters_x}].key".format(**locals()) + " must match pattern ^[A-Za-z0-9._-]+:[A-Za-z0-9+/]{43}=$")
                                if data__ci__substituters_item_keys:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.substituters[{data__ci__substituters_x}]".format(**locals()) + " must not contain "+str(data__ci__substituters_item_keys)+" properties")
                if "builders" in data__ci_keys:
                    data__ci_keys.remove("builders")
                    data__ci__builders = data__ci["builders"]
                    if not isinstance(data__ci__builders, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.builders must be array")
                    data__ci__builders_is_list = isinstance(data__ci__builders, (list, tuple))
                    if data__ci__builders_is_list:
                        data__ci__builders_len = len(data__ci__builders)
                        if data__ci__builders_len > 16:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.builders must contain less than or equal to 16 items")
                        for data__ci__builders_x, data__ci__builders_item in enumerate(data__ci__builders):
                            if not isinstance(data__ci__builders_item, (dict)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.builders[{data__ci__builders_x}]".format(**locals()) + " must be object")
                            data__ci__builders_item_is_dict = isinstance(data__ci__builders_item, dict)
                            if data__ci__builders_item_is_dict:
                                data__ci__builders_item__missing_keys = set(['url', 'systems', 'ssh_key_secret', 'known_hosts_secret']) - data__ci__builders_item.keys()
                                if data__ci__builders_item__missing_keys:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.builders[{data__ci__builders_x}]".format(**locals()) + " must contain ")
                                data__ci__builders_item_keys = set(data__ci__builders_item.keys())
                                if "url" in data__ci__builders_item_keys:
                                    data__ci__builders_item_keys.remove("url")
                                    data__ci__builders_item__url = data__ci__builders_item["url"]
                                    if not isinstance(data__ci__builders_item__url, (str)):
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.builders[{data__ci__builders_x}].url".format(**locals()) + " must be string")
                                    if isinstance(data__ci__builders_item__url, str):
                                        if not REGEX_PATTERNS['^ssh(-ng)?://([A-Za-z0-9._-]+@)?[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$'].search(data__ci__builders_item__url):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.builders[{data__ci__builders_x}].url".format(**locals()) + " must match pattern ^ssh(-ng)?://([A-Za-z0-9._-]+@)?[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$")
                                if "systems" in data__ci__builders_item_keys:
                                    data__ci__builders_item_keys.remove("systems")
                                    data__ci__builders_item__systems = data__ci__builders_item["systems"]
                                    if not isinstance(data__ci__builders_item__systems, (list, tuple)):
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.builders[{data__ci__builders_x}].systems".format(**locals()) + " must be array")
                                    data__ci__builders_item__systems_is_list = isinstance(data__ci__builders_item__systems, (list, tuple))
                                    if data__ci__builders_item__systems_is_list:
                                        data__ci__builders_item__systems_len = len(data__ci__builders_item__systems)
                                        if data__ci__builders_item__systems_len < 1:
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.builders[{data__ci__builders_x}].systems".format(**locals()) + " must contain at least 1 items")
                                        def fn(var): return frozenset(dict((k, fn(v)) for k, v in var.items()).items()) if hasattr(var, "items") else tuple(fn(v) for v in var) if isinstance(var, (dict, list)) else (bool, var) if isinstance(var, bool) else var
                                        if data__ci__builders_item__systems_len > len(set(fn(data__ci__builders_item__systems_x) for data__ci__builders_item__systems_x in data__ci__builders_item__systems)):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.builders[{data__ci__builders_x}].systems".format(**locals()) + " must contain unique items")
                                        for data__ci__builders_item__systems_x, data__ci__builders_item__systems_item in enumerate(data__ci__builders_item__systems):
                                            if not (isinstance(data__ci__builders_item__systems_item, str) and data__ci__builders_item__systems_item == 'x86_64-linux' or isinstance(data__ci__builders_item__systems_item, str) and data__ci__builders_item__systems_item == 'aarch64-linux' or isinstance(data__ci__builders_item__systems_item, str) and data__ci__builders_item__systems_item == 'x86_64-darwin' or isinstance(data__ci__builders_item__systems_item, str) and data__ci__builders_item__systems_item == 'aarch64-darwin'):
                                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.builders[{data__ci__builders_x}].systems[{data__ci__builders_item__systems_x}]".format(**locals()) + " must be one of ['x86_64-linux', 'aarch64-linux', 'x86_64-darwin', 'aarch64-darwin']")
                                if "features" in data__ci__builders_item_keys:
                                    data__ci__builders_item_keys.remove("features")
                                    data__ci__builders_item__features = data__ci__builders_item["features"]
                                    if not isinstance(data__ci__builders_item__features, (list, tuple)):
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.builders[{data__ci__builders_x}].features".format(**locals()) + " must be array")
                                    data__ci__builders_item__features_is_list = isinstance(data__ci__builders_item__features, (list, tuple))
                                    if data__ci__builders_item__features_is_list:
                                        def fn(var): return frozenset(dict((k, fn(v)) for k, v in var.items()).items()) if hasattr(var, "items") else tuple(fn(v) for v in var) if isinstance(var, (dict, list)) else (bool, var) if isinstance(var, bool) else var
                                        data__ci__builders_item__features_len = len(data__ci__builders_item__features)
                                        if data__ci__builders_item__features_len > len(set(fn(data__ci__builders_item__features_x) for data__ci__builders_item__features_x in data__ci__builders_item__features)):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.builders[{data__ci__builders_x}].features".format(**locals()) + " must contain unique items")
                                        for data__ci__builders_item__features_x, data__ci__builders_item__features_item in enumerate(data__ci__builders_item__features):
                                            if not isinstance(data__ci__builders_item__features_item, (str)):
                                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.builders[{data__ci__builders_x}].features[{data__ci__builders_item__features_x}]".format(**locals()) + " must be string")
                                            if isinstance(data__ci__builders_item__features_item, str):
                                                if not REGEX_PATTERNS['^[a-z0-9][a-z0-9_-]*$'].search(data__ci__builders_item__features_item):
                                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.builders[{data__ci__builders_x}].features[{data__ci__builders_item__features_x}]".format(**locals()) + " must match pattern ^[a-z0-9][a-z0-9_-]*$")
                                if "max_jobs" in data__ci__builders_item_keys:
                                    data__ci__builders_item_keys.remove("max_jobs")
                                    data__ci__builders_item__maxjobs = data__ci__builders_item["max_jobs"]
                                    if not isinstance(data__ci__builders_item__maxjobs, (int)) and not (isinstance(data__ci__builders_item__maxjobs, float) and data__ci__builders_item__maxjobs.is_integer()) or isinstance(data__ci__builders_item__maxjobs, bool):
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.builders[{data__ci__builders_x}].max_jobs".format(**locals()) + " must be integer")
                                    if isinstance(data__ci__builders_item__maxjobs, (int, float, Decimal)) and not isinstance(data__ci__builders_item__maxjobs, bool):
                                        if data__ci__builders_item__maxjobs < 1:
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.builders[{data__ci__builders_x}].max_jobs".format(**locals()) + " must be bigger than or equal to 1")
                                        if data__ci__builders_item__maxjobs > 1024:
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.builders[{data__ci__builders_x}].max_jobs".format(**locals()) + " must be smaller than or equal to 1024")
                                if "ssh_key_secret" in data__ci__builders_item_keys:
                                    data__ci__builders_item_keys.remove("ssh_key_secret")
                                    data__ci__builders_item__sshkeysecret = data__ci__builders_item["ssh_key_secret"]
                                    if not isinstance(data__ci__builders_item__sshkeysecret, (str)):
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.builders[{data__ci__builders_x}].ssh_key_secret".format(**locals()) + " must be string")
                                    if isinstance(data__ci__builders_item__sshkeysecret, str):
                                        if not REGEX_PATTERNS['^(?![Gg][Ii][Tt][Hh][Uu][Bb]_)[A-Za-z_][A-Za-z0-9_]*$'].search(data__ci__builders_item__sshkeysecret):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.builders[{data__ci__builders_x}].ssh_key_secret".format(**locals()) + " must match pattern ^(?![Gg][Ii][Tt][Hh][Uu][Bb]_)[A-Za-z_][A-Za-z0-9_]*$")
                                if "known_hosts_secret" in data__ci__builders_item_keys:
                                    data__ci__builders_item_keys.remove("known_hosts_secret")
                                    data__ci__builders_item__knownhostssecret = data__ci__builders_item["known_hosts_secret"]
                                    if not isinstance(data__ci__builders_item__knownhostssecret, (str)):
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.builders[{data__ci__builders_x}].known_hosts_secret".format(**locals()) + " must be string")
                                    if isinstance(data__ci__builders_item__knownhostssecret, str):
                                        if not REGEX_PATTERNS['^(?![Gg][Ii][Tt][Hh][Uu][Bb]_)[A-Za-z_][A-Za-z0-9_]*$'].search(data__ci__builders_item__knownhostssecret):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.builders[{data__ci__builders_x}].known_hosts_secret".format(**locals()) + " must match pattern ^(?![Gg][Ii][Tt][Hh][Uu][Bb]_)[A-Za-z_][A-Za-z0-9_]*$")
                                if data__ci__builders_item_keys:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci.builders[{data__ci__builders_x}]".format(**locals()) + " must not contain "+str(data__ci__builders_item_keys)+" properties")
                if data__ci_keys:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".ci must not contain "+str(data__ci_keys)+" properties")
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties")
    return data

def validate____defs_runnerlabels(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (list, tuple)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be array")
    data_is_list = isinstance(data, (list, tuple))
    if data_is_list:
        data_len = len(data)
        if data_len < 1:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain at least 1 items")
        def fn(var): return frozenset(dict((k, fn(v)) for k, v in var.items()).items()) if hasattr(var, "items") else tuple(fn(v) for v in var) if isinstance(var, (dict, list)) else (bool, var) if isinstance(var, bool) else var
        if data_len > len(set(fn(data_x) for data_x in data)):
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain unique items")
        for data_x, data_item in enumerate(data):
            if not isinstance(data_item, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + "[{data_x}]".format(**locals()) + " must be string")
            if isinstance(data_item, str):
                if not REGEX_PATTERNS['^[A-Za-z0-9][A-Za-z0-9._-]*$'].search(data_item):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + "[{data_x}]".format(**locals()) + " must match pattern ^[A-Za-z0-9][A-Za-z0-9._-]*$")
    return data

def validate____defs_rocmrow(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data_keys = set(data.keys())
        if "targets" in data_keys:
            data_keys.remove("targets")
            data__targets = data["targets"]
            if not isinstance(data__targets, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".targets must be array")
            data__targets_is_list = isinstance(data__targets, (list, tuple))
            if data__targets_is_list:
                data__targets_len = len(data__targets)
                if data__targets_len < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".targets must contain at least 1 items")
                def fn(var): return frozenset(dict((k, fn(v)) for k, v in var.items()).items()) if hasattr(var, "items") else tuple(fn(v) for v in var) if isinstance(var, (dict, list)) else (bool, var) if isinstance(var, bool) else var
                if data__targets_len > len(set(fn(data__targets_x) for data__targets_x in data__targets)):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".targets must contain unique items")
                for data__targets_x, data__targets_item in enumerate(data__targets):
                    if not isinstance(data__targets_item, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".targets[{data__targets_x}]".format(**locals()) + " must be string")
                    if isinstance(data__targets_item, str):
                        if not REGEX_PATTERNS['^gfx[0-9a-f]+$'].search(data__targets_item):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".targets[{data__targets_x}]".format(**locals()) + " must match pattern ^gfx[0-9a-f]+$")
        if "hosts" in data_keys:
            data_keys.remove("hosts")
            data__hosts = data["hosts"]
            if not isinstance(data__hosts, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".hosts must be array")
            data__hosts_is_list = isinstance(data__hosts, (list, tuple))
            if data__hosts_is_list:
                data__hosts_len = len(data__hosts)
                if data__hosts_len < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".hosts must contain at least 1 items")
                def fn(var): return frozenset(dict((k, fn(v)) for k, v in var.items()).items()) if hasattr(var, "items") else tuple(fn(v) for v in var) if isinstance(var, (dict, list)) else (bool, var) if isinstance(var, bool) else var
                if data__hosts_len > len(set(fn(data__hosts_x) for data__hosts_x in data__hosts)):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".hosts must contain unique items")
                for data__hosts_x, data__hosts_item in enumerate(data__hosts):
                    if not (isinstance(data__hosts_item, str) and data__hosts_item == 'x86_64' or isinstance(data__hosts_item, str) and data__hosts_item == 'aarch64'):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".hosts[{data__hosts_x}]".format(**locals()) + " must be one of ['x86_64', 'aarch64']")
        if "source" in data_keys:
            data_keys.remove("source")
            data__source = data["source"]
            if not isinstance(data__source, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".source must be string")
            if isinstance(data__source, str):
                data__source_len = len(data__source)
                if data__source_len < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".source must be longer than or equal to 1 characters")
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties")
    return data

def validate____defs_otherwheelsrow(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data_keys = set(data.keys())
        if "rocm" in data_keys:
            data_keys.remove("rocm")
            data__rocm = data["rocm"]
            if not isinstance(data__rocm, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".rocm must be string")
            if isinstance(data__rocm, str):
                if not REGEX_PATTERNS['^[0-9]+\\.[0-9]+(\\.[0-9]+)?$'].search(data__rocm):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".rocm must match pattern ^[0-9]+\\.[0-9]+(\\.[0-9]+)?$")
        if "gfx" in data_keys:
            data_keys.remove("gfx")
            data__gfx = data["gfx"]
            if not isinstance(data__gfx, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".gfx must be string")
            if isinstance(data__gfx, str):
                if not REGEX_PATTERNS['^(gfx[0-9a-f]+(;gfx[0-9a-f]+)*)?$'].search(data__gfx):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".gfx must match pattern ^(gfx[0-9a-f]+(;gfx[0-9a-f]+)*)?$")
        if "xpu" in data_keys:
            data_keys.remove("xpu")
            data__xpu = data["xpu"]
            if not isinstance(data__xpu, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".xpu must be string")
            if isinstance(data__xpu, str):
                if not REGEX_PATTERNS['^([a-z0-9-]+(,[a-z0-9-]+)*)?$'].search(data__xpu):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".xpu must match pattern ^([a-z0-9-]+(,[a-z0-9-]+)*)?$")
        if "macos" in data_keys:
            data_keys.remove("macos")
            data__macos = data["macos"]
            if not isinstance(data__macos, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".macos must be string")
            if isinstance(data__macos, str):
                if not REGEX_PATTERNS['^[0-9]+\\.[0-9]+$'].search(data__macos):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".macos must match pattern ^[0-9]+\\.[0-9]+$")
        if "source" in data_keys:
            data_keys.remove("source")
            data__source = data["source"]
            if not isinstance(data__source, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".source must be string")
            if isinstance(data__source, str):
                data__source_len = len(data__source)
                if data__source_len < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".source must be longer than or equal to 1 characters")
        if "gfx_source" in data_keys:
            data_keys.remove("gfx_source")
            data__gfxsource = data["gfx_source"]
            if not isinstance(data__gfxsource, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".gfx_source must be string")
            if isinstance(data__gfxsource, str):
                data__gfxsource_len = len(data__gfxsource)
                if data__gfxsource_len < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".gfx_source must be longer than or equal to 1 characters")
        if "xpu_source" in data_keys:
            data_keys.remove("xpu_source")
            data__xpusource = data["xpu_source"]
            if not isinstance(data__xpusource, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".xpu_source must be string")
            if isinstance(data__xpusource, str):
                data__xpusource_len = len(data__xpusource)
                if data__xpusource_len < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".xpu_source must be longer than or equal to 1 characters")
        if "macos_source" in data_keys:
            data_keys.remove("macos_source")
            data__macossource = data["macos_source"]
            if not isinstance(data__macossource, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".macos_source must be string")
            if isinstance(data__macossource, str):
                data__macossource_len = len(data__macossource)
                if data__macossource_len < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".macos_source must be longer than or equal to 1 characters")
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties")
    return data

def validate____defs_othergpurow(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data_keys = set(data.keys())
        if "kind" in data_keys:
            data_keys.remove("kind")
            data__kind = data["kind"]
            if not (isinstance(data__kind, str) and data__kind == 'rocm' or isinstance(data__kind, str) and data__kind == 'xpu' or isinstance(data__kind, str) and data__kind == 'mps'):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".kind must be one of ['rocm', 'xpu', 'mps']")
        if "family" in data_keys:
            data_keys.remove("family")
            data__family = data["family"]
            if not isinstance(data__family, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".family must be string")
            if isinstance(data__family, str):
                data__family_len = len(data__family)
                if data__family_len < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".family must be longer than or equal to 1 characters")
        if "gpus" in data_keys:
            data_keys.remove("gpus")
            data__gpus = data["gpus"]
            if not isinstance(data__gpus, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".gpus must be array")
            data__gpus_is_list = isinstance(data__gpus, (list, tuple))
            if data__gpus_is_list:
                data__gpus_len = len(data__gpus)
                for data__gpus_x, data__gpus_item in enumerate(data__gpus):
                    if not isinstance(data__gpus_item, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".gpus[{data__gpus_x}]".format(**locals()) + " must be string")
                    if isinstance(data__gpus_item, str):
                        data__gpus_item_len = len(data__gpus_item)
                        if data__gpus_item_len < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".gpus[{data__gpus_x}]".format(**locals()) + " must be longer than or equal to 1 characters")
        if "rocm" in data_keys:
            data_keys.remove("rocm")
            data__rocm = data["rocm"]
            if not isinstance(data__rocm, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".rocm must be string")
            if isinstance(data__rocm, str):
                if not REGEX_PATTERNS['^[0-9]+\\.[0-9]+(\\.[0-9]+)?$'].search(data__rocm):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".rocm must match pattern ^[0-9]+\\.[0-9]+(\\.[0-9]+)?$")
        if "source" in data_keys:
            data_keys.remove("source")
            data__source = data["source"]
            if not isinstance(data__source, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".source must be string")
            if isinstance(data__source, str):
                data__source_len = len(data__source)
                if data__source_len < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".source must be longer than or equal to 1 characters")
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties")
    return data

def validate____defs_pinfactsrow(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data_keys = set(data.keys())
        if "torch" in data_keys:
            data_keys.remove("torch")
            data__torch = data["torch"]
            if not isinstance(data__torch, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".torch must be string")
            if isinstance(data__torch, str):
                if not REGEX_PATTERNS['^[0-9]+\\.[0-9]+\\.[0-9]+((a|b|rc)[0-9]+)?$'].search(data__torch):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".torch must match pattern ^[0-9]+\\.[0-9]+\\.[0-9]+((a|b|rc)[0-9]+)?$")
        if "torchvision" in data_keys:
            data_keys.remove("torchvision")
            data__torchvision = data["torchvision"]
            if not isinstance(data__torchvision, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".torchvision must be string")
            if isinstance(data__torchvision, str):
                if not REGEX_PATTERNS['^[0-9]+\\.[0-9]+\\.[0-9]+((a|b|rc)[0-9]+)?$'].search(data__torchvision):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".torchvision must match pattern ^[0-9]+\\.[0-9]+\\.[0-9]+((a|b|rc)[0-9]+)?$")
        if "torchaudio" in data_keys:
            data_keys.remove("torchaudio")
            data__torchaudio = data["torchaudio"]
            if not isinstance(data__torchaudio, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".torchaudio must be string")
            if isinstance(data__torchaudio, str):
                if not REGEX_PATTERNS['^[0-9]+\\.[0-9]+\\.[0-9]+((a|b|rc)[0-9]+)?$'].search(data__torchaudio):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".torchaudio must match pattern ^[0-9]+\\.[0-9]+\\.[0-9]+((a|b|rc)[0-9]+)?$")
        if "cuda" in data_keys:
            data_keys.remove("cuda")
            data__cuda = data["cuda"]
            if not isinstance(data__cuda, (dict)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".cuda must be object")
            data__cuda_is_dict = isinstance(data__cuda, dict)
            if data__cuda_is_dict:
                data__cuda_keys = set(data__cuda.keys())
                for data__cuda_key in data__cuda_keys:
                    if data__cuda_key not in []:
                        data__cuda_value = data__cuda.get(data__cuda_key)
                        if not isinstance(data__cuda_value, (str)):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".cuda.{data__cuda_key}".format(**locals()) + " must be string")
                        if isinstance(data__cuda_value, str):
                            if not REGEX_PATTERNS['^[0-9]+\\.[0-9]+(\\.[0-9]+)*$'].search(data__cuda_value):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".cuda.{data__cuda_key}".format(**locals()) + " must match pattern ^[0-9]+\\.[0-9]+(\\.[0-9]+)*$")
                data__cuda_len = len(data__cuda)
                if data__cuda_len != 0:
                    data__cuda_property_names = True
                    for data__cuda_key in data__cuda:
                        try:
                            if isinstance(data__cuda_key, str):
                                if not REGEX_PATTERNS['^[0-9]+\\.[0-9]+$'].search(data__cuda_key):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".cuda must match pattern ^[0-9]+\\.[0-9]+$")
                        except (JsonSchemaValueException, JsonSchemaValuesException):
                            data__cuda_property_names = False
                    if not data__cuda_property_names:
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".cuda must be named by propertyName definition")
        if "cuda_aliases" in data_keys:
            data_keys.remove("cuda_aliases")
            data__cudaaliases = data["cuda_aliases"]
            if not isinstance(data__cudaaliases, (dict)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".cuda_aliases must be object")
            data__cudaaliases_is_dict = isinstance(data__cudaaliases, dict)
            if data__cudaaliases_is_dict:
                data__cudaaliases_keys = set(data__cudaaliases.keys())
                for data__cudaaliases_key in data__cudaaliases_keys:
                    if data__cudaaliases_key not in []:
                        data__cudaaliases_value = data__cudaaliases.get(data__cudaaliases_key)
                        if not isinstance(data__cudaaliases_value, (str)):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".cuda_aliases.{data__cudaaliases_key}".format(**locals()) + " must be string")
                        if isinstance(data__cudaaliases_value, str):
                            if not REGEX_PATTERNS['^[0-9]+\\.[0-9]+$'].search(data__cudaaliases_value):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".cuda_aliases.{data__cudaaliases_key}".format(**locals()) + " must match pattern ^[0-9]+\\.[0-9]+$")
                data__cudaaliases_len = len(data__cudaaliases)
                if data__cudaaliases_len != 0:
                    data__cudaaliases_property_names = True
                    for data__cudaaliases_key in data__cudaaliases:
                        try:
                            if isinstance(data__cudaaliases_key, str):
                                if not REGEX_PATTERNS['^cudaPackages(_[0-9]+)?$'].search(data__cudaaliases_key):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".cuda_aliases must match pattern ^cudaPackages(_[0-9]+)?$")
                        except (JsonSchemaValueException, JsonSchemaValuesException):
                            data__cudaaliases_property_names = False
                    if not data__cudaaliases_property_names:
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".cuda_aliases must be named by propertyName definition")
        if "capabilities" in data_keys:
            data_keys.remove("capabilities")
            data__capabilities = data["capabilities"]
            if not isinstance(data__capabilities, (dict)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".capabilities must be object")
            data__capabilities_is_dict = isinstance(data__capabilities, dict)
            if data__capabilities_is_dict:
                data__capabilities_keys = set(data__capabilities.keys())
                for data__capabilities_key in data__capabilities_keys:
                    if data__capabilities_key not in []:
                        data__capabilities_value = data__capabilities.get(data__capabilities_key)
                        if not isinstance(data__capabilities_value, (list, tuple)):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".capabilities.{data__capabilities_key}".format(**locals()) + " must be array")
                        data__capabilities_value_is_list = isinstance(data__capabilities_value, (list, tuple))
                        if data__capabilities_value_is_list:
                            data__capabilities_value_len = len(data__capabilities_value)
                            for data__capabilities_value_x, data__capabilities_value_item in enumerate(data__capabilities_value):
                                if not isinstance(data__capabilities_value_item, (str)):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".capabilities.{data__capabilities_key}[{data__capabilities_value_x}]".format(**locals()) + " must be string")
                                if isinstance(data__capabilities_value_item, str):
                                    if not REGEX_PATTERNS['^[0-9]+\\.[0-9]+$'].search(data__capabilities_value_item):
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".capabilities.{data__capabilities_key}[{data__capabilities_value_x}]".format(**locals()) + " must match pattern ^[0-9]+\\.[0-9]+$")
                data__capabilities_len = len(data__capabilities)
                if data__capabilities_len != 0:
                    data__capabilities_property_names = True
                    for data__capabilities_key in data__capabilities:
                        try:
                            if isinstance(data__capabilities_key, str):
                                if not REGEX_PATTERNS['^[0-9]+\\.[0-9]+$'].search(data__capabilities_key):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".capabilities must match pattern ^[0-9]+\\.[0-9]+$")
                        except (JsonSchemaValueException, JsonSchemaValuesException):
                            data__capabilities_property_names = False
                    if not data__capabilities_property_names:
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".capabilities must be named by propertyName definition")
        if "python" in data_keys:
            data_keys.remove("python")
            data__python = data["python"]
            if not isinstance(data__python, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".python must be array")
            data__python_is_list = isinstance(data__python, (list, tuple))
            if data__python_is_list:
                data__python_len = len(data__python)
                for data__python_x, data__python_item in enumerate(data__python):
                    if not isinstance(data__python_item, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".python[{data__python_x}]".format(**locals()) + " must be string")
                    if isinstance(data__python_item, str):
                        if not REGEX_PATTERNS['^[0-9]+\\.[0-9]+$'].search(data__python_item):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".python[{data__python_x}]".format(**locals()) + " must match pattern ^[0-9]+\\.[0-9]+$")
        if "python_default" in data_keys:
            data_keys.remove("python_default")
            data__pythondefault = data["python_default"]
            if not isinstance(data__pythondefault, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".python_default must be string")
            if isinstance(data__pythondefault, str):
                if not REGEX_PATTERNS['^[0-9]+\\.[0-9]+$'].search(data__pythondefault):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".python_default must match pattern ^[0-9]+\\.[0-9]+$")
        if "rocm" in data_keys:
            data_keys.remove("rocm")
            data__rocm = data["rocm"]
            if not isinstance(data__rocm, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".rocm must be string")
            if isinstance(data__rocm, str):
                if not REGEX_PATTERNS['^[0-9]+\\.[0-9]+\\.[0-9]+$'].search(data__rocm):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".rocm must match pattern ^[0-9]+\\.[0-9]+\\.[0-9]+$")
        if "carries" in data_keys:
            data_keys.remove("carries")
            data__carries = data["carries"]
            if not isinstance(data__carries, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".carries must be array")
            data__carries_is_list = isinstance(data__carries, (list, tuple))
            if data__carries_is_list:
                data__carries_len = len(data__carries)
                for data__carries_x, data__carries_item in enumerate(data__carries):
                    if not isinstance(data__carries_item, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".carries[{data__carries_x}]".format(**locals()) + " must be string")
                    if isinstance(data__carries_item, str):
                        data__carries_item_len = len(data__carries_item)
                        if data__carries_item_len < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".carries[{data__carries_x}]".format(**locals()) + " must be longer than or equal to 1 characters")
        if "sources" in data_keys:
            data_keys.remove("sources")
            data__sources = data["sources"]
            if not isinstance(data__sources, (dict)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources must be object")
            data__sources_is_dict = isinstance(data__sources, dict)
            if data__sources_is_dict:
                data__sources_keys = set(data__sources.keys())
                for data__sources_key in data__sources_keys:
                    if data__sources_key not in []:
                        data__sources_value = data__sources.get(data__sources_key)
                        if not isinstance(data__sources_value, (str)):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}".format(**locals()) + " must be string")
                        if isinstance(data__sources_value, str):
                            data__sources_value_len = len(data__sources_value)
                            if data__sources_value_len < 1:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources.{data__sources_key}".format(**locals()) + " must be longer than or equal to 1 characters")
                data__sources_len = len(data__sources)
                if data__sources_len != 0:
                    data__sources_property_names = True
                    for data__sources_key in data__sources:
                        try:
                            if not (isinstance(data__sources_key, str) and data__sources_key == 'torch' or isinstance(data__sources_key, str) and data__sources_key == 'torchvision' or isinstance(data__sources_key, str) and data__sources_key == 'torchaudio' or isinstance(data__sources_key, str) and data__sources_key == 'cuda' or isinstance(data__sources_key, str) and data__sources_key == 'cuda_aliases' or isinstance(data__sources_key, str) and data__sources_key == 'capabilities' or isinstance(data__sources_key, str) and data__sources_key == 'python' or isinstance(data__sources_key, str) and data__sources_key == 'python_default' or isinstance(data__sources_key, str) and data__sources_key == 'carries' or isinstance(data__sources_key, str) and data__sources_key == 'rocm'):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources must be one of ['torch', 'torchvision', 'torchaudio', 'cuda', 'cuda_aliases', 'capabilities', 'python', 'python_default', 'carries', 'rocm']")
                        except (JsonSchemaValueException, JsonSchemaValuesException):
                            data__sources_property_names = False
                    if not data__sources_property_names:
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".sources must be named by propertyName definition")
        if "inferred" in data_keys:
            data_keys.remove("inferred")
            data__inferred = data["inferred"]
            if not isinstance(data__inferred, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".inferred must be array")
            data__inferred_is_list = isinstance(data__inferred, (list, tuple))
            if data__inferred_is_list:
                data__inferred_len = len(data__inferred)
                for data__inferred_x, data__inferred_item in enumerate(data__inferred):
                    if not (isinstance(data__inferred_item, str) and data__inferred_item == 'torch' or isinstance(data__inferred_item, str) and data__inferred_item == 'torchvision' or isinstance(data__inferred_item, str) and data__inferred_item == 'torchaudio' or isinstance(data__inferred_item, str) and data__inferred_item == 'cuda' or isinstance(data__inferred_item, str) and data__inferred_item == 'cuda_aliases' or isinstance(data__inferred_item, str) and data__inferred_item == 'capabilities' or isinstance(data__inferred_item, str) and data__inferred_item == 'python' or isinstance(data__inferred_item, str) and data__inferred_item == 'python_default' or isinstance(data__inferred_item, str) and data__inferred_item == 'carries' or isinstance(data__inferred_item, str) and data__inferred_item == 'rocm'):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".inferred[{data__inferred_x}]".format(**locals()) + " must be one of ['torch', 'torchvision', 'torchaudio', 'cuda', 'cuda_aliases', 'capabilities', 'python', 'python_default', 'carries', 'rocm']")
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties")
    return data

def validate____defs_buildcostrow(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data_keys = set(data.keys())
        if "minutes" in data_keys:
            data_keys.remove("minutes")
            data__minutes = data["minutes"]
            if not isinstance(data__minutes, (int)) and not (isinstance(data__minutes, float) and data__minutes.is_integer()) or isinstance(data__minutes, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".minutes must be integer")
            if isinstance(data__minutes, (int, float, Decimal)) and not isinstance(data__minutes, bool):
                if data__minutes < 0:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".minutes must be bigger than or equal to 0")
        if "cores" in data_keys:
            data_keys.remove("cores")
            data__cores = data["cores"]
            if not isinstance(data__cores, (int)) and not (isinstance(data__cores, float) and data__cores.is_integer()) or isinstance(data__cores, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".cores must be integer")
            if isinstance(data__cores, (int, float, Decimal)) and not isinstance(data__cores, bool):
                if data__cores < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".cores must be bigger than or equal to 1")
        if "memory_gb" in data_keys:
            data_keys.remove("memory_gb")
            data__memorygb = data["memory_gb"]
            if not isinstance(data__memorygb, (int)) and not (isinstance(data__memorygb, float) and data__memorygb.is_integer()) or isinstance(data__memorygb, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".memory_gb must be integer")
            if isinstance(data__memorygb, (int, float, Decimal)) and not isinstance(data__memorygb, bool):
                if data__memorygb < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".memory_gb must be bigger than or equal to 1")
        if "disk_gb" in data_keys:
            data_keys.remove("disk_gb")
            data__diskgb = data["disk_gb"]
            if not isinstance(data__diskgb, (int)) and not (isinstance(data__diskgb, float) and data__diskgb.is_integer()) or isinstance(data__diskgb, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".disk_gb must be integer")
            if isinstance(data__diskgb, (int, float, Decimal)) and not isinstance(data__diskgb, bool):
                if data__diskgb < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".disk_gb must be bigger than or equal to 1")
        if "source" in data_keys:
            data_keys.remove("source")
            data__source = data["source"]
            if not isinstance(data__source, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".source must be string")
        if "cached_percent" in data_keys:
            data_keys.remove("cached_percent")
            data__cachedpercent = data["cached_percent"]
            if not isinstance(data__cachedpercent, (int)) and not (isinstance(data__cachedpercent, float) and data__cachedpercent.is_integer()) or isinstance(data__cachedpercent, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".cached_percent must be integer")
            if isinstance(data__cachedpercent, (int, float, Decimal)) and not isinstance(data__cachedpercent, bool):
                if data__cachedpercent < 0:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".cached_percent must be bigger than or equal to 0")
                if data__cachedpercent > 100:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".cached_percent must be smaller than or equal to 100")
        if "cached_source" in data_keys:
            data_keys.remove("cached_source")
            data__cachedsource = data["cached_source"]
            if not isinstance(data__cachedsource, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".cached_source must be string")
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties")
    return data

def validate____defs_compilejobrow(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data_keys = set(data.keys())
        if "memory_gb" in data_keys:
            data_keys.remove("memory_gb")
            data__memorygb = data["memory_gb"]
            if not isinstance(data__memorygb, (int)) and not (isinstance(data__memorygb, float) and data__memorygb.is_integer()) or isinstance(data__memorygb, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".memory_gb must be integer")
            if isinstance(data__memorygb, (int, float, Decimal)) and not isinstance(data__memorygb, bool):
                if data__memorygb < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".memory_gb must be bigger than or equal to 1")
        if "source" in data_keys:
            data_keys.remove("source")
            data__source = data["source"]
            if not isinstance(data__source, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".source must be string")
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties")
    return data

def validate____defs_nixpkgsoffrow(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data_keys = set(data.keys())
        if "when" in data_keys:
            data_keys.remove("when")
            data__when = data["when"]
            if not (isinstance(data__when, str) and data__when == 'jetson_build'):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".when must be one of ['jetson_build']")
        if "switches" in data_keys:
            data_keys.remove("switches")
            data__switches = data["switches"]
            if not isinstance(data__switches, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".switches must be array")
            data__switches_is_list = isinstance(data__switches, (list, tuple))
            if data__switches_is_list:
                data__switches_len = len(data__switches)
                for data__switches_x, data__switches_item in enumerate(data__switches):
                    if not isinstance(data__switches_item, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".switches[{data__switches_x}]".format(**locals()) + " must be string")
                    if isinstance(data__switches_item, str):
                        if not REGEX_PATTERNS['^[A-Z][A-Z0-9_]*$'].search(data__switches_item):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".switches[{data__switches_x}]".format(**locals()) + " must match pattern ^[A-Z][A-Z0-9_]*$")
        if "why" in data_keys:
            data_keys.remove("why")
            data__why = data["why"]
            if not isinstance(data__why, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".why must be string")
        if "source" in data_keys:
            data_keys.remove("source")
            data__source = data["source"]
            if not isinstance(data__source, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".source must be string")
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties")
    return data

def validate____defs_workaroundrow(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data__missing_keys = set(['why', 'source', 'when']) - data.keys()
        if data__missing_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain ")
        data_keys = set(data.keys())
        if "why" in data_keys:
            data_keys.remove("why")
            data__why = data["why"]
            if not isinstance(data__why, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".why must be string")
        if "source" in data_keys:
            data_keys.remove("source")
            data__source = data["source"]
            if not isinstance(data__source, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".source must be string")
        if "when" in data_keys:
            data_keys.remove("when")
            data__when = data["when"]
            if not isinstance(data__when, (dict)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".when must be object")
            data__when_is_dict = isinstance(data__when, dict)
            if data__when_is_dict:
                data__when_keys = set(data__when.keys())
                if "pytorch" in data__when_keys:
                    data__when_keys.remove("pytorch")
                    data__when__pytorch = data__when["pytorch"]
                    validate____defs_versionrange(data__when__pytorch, custom_formats, (name_prefix or "data") + ".when.pytorch")
                if "cuda" in data__when_keys:
                    data__when_keys.remove("cuda")
                    data__when__cuda = data__when["cuda"]
                    validate____defs_versionrange(data__when__cuda, custom_formats, (name_prefix or "data") + ".when.cuda")
                if "system" in data__when_keys:
                    data__when_keys.remove("system")
                    data__when__system = data__when["system"]
                    if not isinstance(data__when__system, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".when.system must be array")
                    data__when__system_is_list = isinstance(data__when__system, (list, tuple))
                    if data__when__system_is_list:
                        data__when__system_len = len(data__when__system)
                        if data__when__system_len < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".when.system must contain at least 1 items")
                        for data__when__system_x, data__when__system_item in enumerate(data__when__system):
                            if not (isinstance(data__when__system_item, str) and data__when__system_item == 'Linux' or isinstance(data__when__system_item, str) and data__when__system_item == 'Windows' or isinstance(data__when__system_item, str) and data__when__system_item == 'Darwin'):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".when.system[{data__when__system_x}]".format(**locals()) + " must be one of ['Linux', 'Windows', 'Darwin']")
                if "kind" in data__when_keys:
                    data__when_keys.remove("kind")
                    data__when__kind = data__when["kind"]
                    if not isinstance(data__when__kind, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".when.kind must be array")
                    data__when__kind_is_list = isinstance(data__when__kind, (list, tuple))
                    if data__when__kind_is_list:
                        data__when__kind_len = len(data__when__kind)
                        if data__when__kind_len < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".when.kind must contain at least 1 items")
                        for data__when__kind_x, data__when__kind_item in enumerate(data__when__kind):
                            if not (isinstance(data__when__kind_item, str) and data__when__kind_item == 'gpu' or isinstance(data__when__kind_item, str) and data__when__kind_item == 'cpu' or isinstance(data__when__kind_item, str) and data__when__kind_item == 'darwin'):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".when.kind[{data__when__kind_x}]".format(**locals()) + " must be one of ['gpu', 'cpu', 'darwin']")
                if data__when_keys:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".when must not contain "+str(data__when_keys)+" properties")
        if "pip" in data_keys:
            data_keys.remove("pip")
            data__pip = data["pip"]
            if not isinstance(data__pip, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".pip must be array")
            data__pip_is_list = isinstance(data__pip, (list, tuple))
            if data__pip_is_list:
                data__pip_len = len(data__pip)
                for data__pip_x, data__pip_item in enumerate(data__pip):
                    if not isinstance(data__pip_item, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".pip[{data__pip_x}]".format(**locals()) + " must be string")
                    if isinstance(data__pip_item, str):
                        if not REGEX_PATTERNS['^[A-Za-z0-9_.-]+([<>=!~]=?[0-9A-Za-z.*]+)?(,[<>=!~]=?[0-9A-Za-z.*]+)*$'].search(data__pip_item):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".pip[{data__pip_x}]".format(**locals()) + " must match pattern ^[A-Za-z0-9_.-]+([<>=!~]=?[0-9A-Za-z.*]+)?(,[<>=!~]=?[0-9A-Za-z.*]+)*$")
        if "env" in data_keys:
            data_keys.remove("env")
            data__env = data["env"]
            if not isinstance(data__env, (dict)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".env must be object")
            data__env_is_dict = isinstance(data__env, dict)
            if data__env_is_dict:
                data__env_keys = set(data__env.keys())
                for data__env_key in data__env_keys:
                    if data__env_key not in []:
                        data__env_value = data__env.get(data__env_key)
                        if not isinstance(data__env_value, (str)):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".env.{data__env_key}".format(**locals()) + " must be string")
                        if isinstance(data__env_value, str):
                            data__env_value_len = len(data__env_value)
                            if data__env_value_len < 1:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".env.{data__env_key}".format(**locals()) + " must be longer than or equal to 1 characters")
                            if not REGEX_PATTERNS['^[^\\r\\n]*$'].search(data__env_value):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".env.{data__env_key}".format(**locals()) + " must match pattern ^[^\\r\\n]*$")
                data__env_len = len(data__env)
                if data__env_len != 0:
                    data__env_property_names = True
                    for data__env_key in data__env:
                        try:
                            if isinstance(data__env_key, str):
                                if not REGEX_PATTERNS['^[A-Z_][A-Z0-9_]*$'].search(data__env_key):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".env must match pattern ^[A-Z_][A-Z0-9_]*$")
                        except (JsonSchemaValueException, JsonSchemaValuesException):
                            data__env_property_names = False
                    if not data__env_property_names:
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".env must be named by propertyName definition")
        if "cmake" in data_keys:
            data_keys.remove("cmake")
            data__cmake = data["cmake"]
            if not isinstance(data__cmake, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".cmake must be string")
            if isinstance(data__cmake, str):
                if not REGEX_PATTERNS['^>=[0-9]+$'].search(data__cmake):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".cmake must match pattern ^>=[0-9]+$")
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties")
    return data

def validate____defs_versionrange(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (str)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be string")
    if isinstance(data, str):
        if not REGEX_PATTERNS['^\\s*(>=|<=|==|!=|<|>)\\s*[0-9]+(\\.[0-9]+)*\\s*(,\\s*(>=|<=|==|!=|<|>)\\s*[0-9]+(\\.[0-9]+)*\\s*)*$'].search(data):
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must match pattern ^\\s*(>=|<=|==|!=|<|>)\\s*[0-9]+(\\.[0-9]+)*\\s*(,\\s*(>=|<=|==|!=|<|>)\\s*[0-9]+(\\.[0-9]+)*\\s*)*$")
    return data

def validate____defs_fixrow(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data_keys = set(data.keys())
        if "why" in data_keys:
            data_keys.remove("why")
            data__why = data["why"]
            if not isinstance(data__why, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".why must be string")
        if "file" in data_keys:
            data_keys.remove("file")
            data__file = data["file"]
            if not isinstance(data__file, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".file must be string")
            if isinstance(data__file, str):
                if not REGEX_PATTERNS['^[a-z0-9][a-z0-9_-]*$'].search(data__file):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".file must match pattern ^[a-z0-9][a-z0-9_-]*$")
        if "enabled" in data_keys:
            data_keys.remove("enabled")
            data__enabled = data["enabled"]
            if not isinstance(data__enabled, (bool)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".enabled must be boolean")
        if "changes" in data_keys:
            data_keys.remove("changes")
            data__changes = data["changes"]
            if not (isinstance(data__changes, str) and data__changes == 'derivation' or isinstance(data__changes, str) and data__changes == 'evaluation'):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".changes must be one of ['derivation', 'evaluation']")
        if "when" in data_keys:
            data_keys.remove("when")
            data__when = data["when"]
            if not isinstance(data__when, (dict)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".when must be object")
            data__when_is_dict = isinstance(data__when, dict)
            if data__when_is_dict:
                data__when_keys = set(data__when.keys())
                if "pytorch" in data__when_keys:
                    data__when_keys.remove("pytorch")
                    data__when__pytorch = data__when["pytorch"]
                    validate____defs_versionrange(data__when__pytorch, custom_formats, (name_prefix or "data") + ".when.pytorch")
                if "cuda" in data__when_keys:
                    data__when_keys.remove("cuda")
                    data__when__cuda = data__when["cuda"]
                    validate____defs_versionrange(data__when__cuda, custom_formats, (name_prefix or "data") + ".when.cuda")
                if "source" in data__when_keys:
                    data__when_keys.remove("source")
                    data__when__source = data__when["source"]
                    if not isinstance(data__when__source, (bool)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".when.source must be boolean")
                if "isa" in data__when_keys:
                    data__when_keys.remove("isa")
                    data__when__isa = data__when["isa"]
                    if not isinstance(data__when__isa, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".when.isa must be array")
                    data__when__isa_is_list = isinstance(data__when__isa, (list, tuple))
                    if data__when__isa_is_list:
                        data__when__isa_len = len(data__when__isa)
                        if data__when__isa_len < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".when.isa must contain at least 1 items")
                        for data__when__isa_x, data__when__isa_item in enumerate(data__when__isa):
                            if not isinstance(data__when__isa_item, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".when.isa[{data__when__isa_x}]".format(**locals()) + " must be string")
                if "system" in data__when_keys:
                    data__when_keys.remove("system")
                    data__when__system = data__when["system"]
                    if not isinstance(data__when__system, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".when.system must be array")
                    data__when__system_is_list = isinstance(data__when__system, (list, tuple))
                    if data__when__system_is_list:
                        data__when__system_len = len(data__when__system)
                        if data__when__system_len < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".when.system must contain at least 1 items")
                        for data__when__system_x, data__when__system_item in enumerate(data__when__system):
                            if not isinstance(data__when__system_item, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".when.system[{data__when__system_x}]".format(**locals()) + " must be string")
                if "kind" in data__when_keys:
                    data__when_keys.remove("kind")
                    data__when__kind = data__when["kind"]
                    if not isinstance(data__when__kind, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".when.kind must be array")
                    data__when__kind_is_list = isinstance(data__when__kind, (list, tuple))
                    if data__when__kind_is_list:
                        data__when__kind_len = len(data__when__kind)
                        if data__when__kind_len < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".when.kind must contain at least 1 items")
                        for data__when__kind_x, data__when__kind_item in enumerate(data__when__kind):
                            if not (isinstance(data__when__kind_item, str) and data__when__kind_item == 'gpu' or isinstance(data__when__kind_item, str) and data__when__kind_item == 'cpu' or isinstance(data__when__kind_item, str) and data__when__kind_item == 'darwin'):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".when.kind[{data__when__kind_x}]".format(**locals()) + " must be one of ['gpu', 'cpu', 'darwin']")
                if "pin" in data__when_keys:
                    data__when_keys.remove("pin")
                    data__when__pin = data__when["pin"]
                    if not isinstance(data__when__pin, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".when.pin must be array")
                    data__when__pin_is_list = isinstance(data__when__pin, (list, tuple))
                    if data__when__pin_is_list:
                        data__when__pin_len = len(data__when__pin)
                        if data__when__pin_len < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".when.pin must contain at least 1 items")
                        for data__when__pin_x, data__when__pin_item in enumerate(data__when__pin):
                            if not isinstance(data__when__pin_item, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".when.pin[{data__when__pin_x}]".format(**locals()) + " must be string")
                if "compiler_cache" in data__when_keys:
                    data__when_keys.remove("compiler_cache")
                    data__when__compilercache = data__when["compiler_cache"]
                    if not isinstance(data__when__compilercache, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".when.compiler_cache must be array")
                    data__when__compilercache_is_list = isinstance(data__when__compilercache, (list, tuple))
                    if data__when__compilercache_is_list:
                        data__when__compilercache_len = len(data__when__compilercache)
                        if data__when__compilercache_len < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".when.compiler_cache must contain at least 1 items")
                        for data__when__compilercache_x, data__when__compilercache_item in enumerate(data__when__compilercache):
                            if not (isinstance(data__when__compilercache_item, str) and data__when__compilercache_item == 'ccache'):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".when.compiler_cache[{data__when__compilercache_x}]".format(**locals()) + " must be one of ['ccache']")
                if data__when_keys:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".when must not contain "+str(data__when_keys)+" properties")
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties")
    return data

def validate____defs_releaserow(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data_keys = set(data.keys())
        if "python" in data_keys:
            data_keys.remove("python")
            data__python = data["python"]
            if not isinstance(data__python, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".python must be array")
            data__python_is_list = isinstance(data__python, (list, tuple))
            if data__python_is_list:
                data__python_len = len(data__python)
                if data__python_len < 2:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".python must contain at least 2 items")
                if data__python_len > 2:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".python must contain less than or equal to 2 items")
                for data__python_x, data__python_item in enumerate(data__python):
                    validate____defs_version(data__python_item, custom_formats, (name_prefix or "data") + ".python[{data__python_x}]".format(**locals()))
        if "default_python" in data_keys:
            data_keys.remove("default_python")
            data__defaultpython = data["default_python"]
            validate____defs_version(data__defaultpython, custom_formats, (name_prefix or "data") + ".default_python")
        if "cuda" in data_keys:
            data_keys.remove("cuda")
            data__cuda = data["cuda"]
            if not isinstance(data__cuda, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".cuda must be array")
            data__cuda_is_list = isinstance(data__cuda, (list, tuple))
            if data__cuda_is_list:
                data__cuda_len = len(data__cuda)
                for data__cuda_x, data__cuda_item in enumerate(data__cuda):
                    validate____defs_version(data__cuda_item, custom_formats, (name_prefix or "data") + ".cuda[{data__cuda_x}]".format(**locals()))
        if "experimental_cuda" in data_keys:
            data_keys.remove("experimental_cuda")
            data__experimentalcuda = data["experimental_cuda"]
            if not isinstance(data__experimentalcuda, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".experimental_cuda must be array")
            data__experimentalcuda_is_list = isinstance(data__experimentalcuda, (list, tuple))
            if data__experimentalcuda_is_list:
                data__experimentalcuda_len = len(data__experimentalcuda)
                for data__experimentalcuda_x, data__experimentalcuda_item in enumerate(data__experimentalcuda):
                    validate____defs_version(data__experimentalcuda_item, custom_formats, (name_prefix or "data") + ".experimental_cuda[{data__experimentalcuda_x}]".format(**locals()))
        if "wheels" in data_keys:
            data_keys.remove("wheels")
            data__wheels = data["wheels"]
            if not isinstance(data__wheels, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".wheels must be array")
            data__wheels_is_list = isinstance(data__wheels, (list, tuple))
            if data__wheels_is_list:
                data__wheels_len = len(data__wheels)
                for data__wheels_x, data__wheels_item in enumerate(data__wheels):
                    validate____defs_wheelrow(data__wheels_item, custom_formats, (name_prefix or "data") + ".wheels[{data__wheels_x}]".format(**locals()))
        if "latest" in data_keys:
            data_keys.remove("latest")
            data__latest = data["latest"]
            if not isinstance(data__latest, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".latest must be string")
            if isinstance(data__latest, str):
                if not REGEX_PATTERNS['^[0-9]+\\.[0-9]+\\.[0-9]+$'].search(data__latest):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".latest must match pattern ^[0-9]+\\.[0-9]+\\.[0-9]+$")
        if "source_cuda" in data_keys:
            data_keys.remove("source_cuda")
            data__sourcecuda = data["source_cuda"]
            validate____defs_versionrange(data__sourcecuda, custom_formats, (name_prefix or "data") + ".source_cuda")
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties")
    return data

def validate____defs_wheelrow(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data__missing_keys = set(['cuda', 'system', 'index', 'arch', 'source']) - data.keys()
        if data__missing_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain ")
        data_keys = set(data.keys())
        if "cuda" in data_keys:
            data_keys.remove("cuda")
            data__cuda = data["cuda"]
            validate____defs_version(data__cuda, custom_formats, (name_prefix or "data") + ".cuda")
        if "system" in data_keys:
            data_keys.remove("system")
            data__system = data["system"]
            if not (isinstance(data__system, str) and data__system == 'x86_64-linux' or isinstance(data__system, str) and data__system == 'aarch64-linux' or isinstance(data__system, str) and data__system == 'x86_64-windows'):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".system must be one of ['x86_64-linux', 'aarch64-linux', 'x86_64-windows']")
        if "index" in data_keys:
            data_keys.remove("index")
            data__index = data["index"]
            if not (isinstance(data__index, str) and data__index == 'pip' or isinstance(data__index, str) and data__index == 'conda'):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".index must be one of ['pip', 'conda']")
        if "arch" in data_keys:
            data_keys.remove("arch")
            data__arch = data["arch"]
            if not isinstance(data__arch, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".arch must be string")
            if isinstance(data__arch, str):
                if not REGEX_PATTERNS['^[0-9]+\\.[0-9]+[af]?(\\+PTX)?(;[0-9]+\\.[0-9]+[af]?(\\+PTX)?)*$'].search(data__arch):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".arch must match pattern ^[0-9]+\\.[0-9]+[af]?(\\+PTX)?(;[0-9]+\\.[0-9]+[af]?(\\+PTX)?)*$")
        if "source" in data_keys:
            data_keys.remove("source")
            data__source = data["source"]
            if not isinstance(data__source, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".source must be string")
            if isinstance(data__source, str):
                data__source_len = len(data__source)
                if data__source_len < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".source must be longer than or equal to 1 characters")
        if "inferred" in data_keys:
            data_keys.remove("inferred")
            data__inferred = data["inferred"]
            if not isinstance(data__inferred, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".inferred must be string")
            if isinstance(data__inferred, str):
                data__inferred_len = len(data__inferred)
                if data__inferred_len < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".inferred must be longer than or equal to 1 characters")
        if "gaps" in data_keys:
            data_keys.remove("gaps")
            data__gaps = data["gaps"]
            if not isinstance(data__gaps, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".gaps must be array")
            data__gaps_is_list = isinstance(data__gaps, (list, tuple))
            if data__gaps_is_list:
                data__gaps_len = len(data__gaps)
                for data__gaps_x, data__gaps_item in enumerate(data__gaps):
                    if not isinstance(data__gaps_item, (dict)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".gaps[{data__gaps_x}]".format(**locals()) + " must be object")
                    data__gaps_item_is_dict = isinstance(data__gaps_item, dict)
                    if data__gaps_item_is_dict:
                        data__gaps_item__missing_keys = set(['library', 'lacks', 'holds', 'source']) - data__gaps_item.keys()
                        if data__gaps_item__missing_keys:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".gaps[{data__gaps_x}]".format(**locals()) + " must contain ")
                        data__gaps_item_keys = set(data__gaps_item.keys())
                        if "library" in data__gaps_item_keys:
                            data__gaps_item_keys.remove("library")
                            data__gaps_item__library = data__gaps_item["library"]
                            if not isinstance(data__gaps_item__library, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".gaps[{data__gaps_x}].library".format(**locals()) + " must be string")
                            if isinstance(data__gaps_item__library, str):
                                data__gaps_item__library_len = len(data__gaps_item__library)
                                if data__gaps_item__library_len < 1:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".gaps[{data__gaps_x}].library".format(**locals()) + " must be longer than or equal to 1 characters")
                        if "lacks" in data__gaps_item_keys:
                            data__gaps_item_keys.remove("lacks")
                            data__gaps_item__lacks = data__gaps_item["lacks"]
                            if not isinstance(data__gaps_item__lacks, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".gaps[{data__gaps_x}].lacks".format(**locals()) + " must be string")
                            if isinstance(data__gaps_item__lacks, str):
                                if not REGEX_PATTERNS['^[0-9]+\\.[0-9]+[af]?(;[0-9]+\\.[0-9]+[af]?)*$'].search(data__gaps_item__lacks):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".gaps[{data__gaps_x}].lacks".format(**locals()) + " must match pattern ^[0-9]+\\.[0-9]+[af]?(;[0-9]+\\.[0-9]+[af]?)*$")
                        if "holds" in data__gaps_item_keys:
                            data__gaps_item_keys.remove("holds")
                            data__gaps_item__holds = data__gaps_item["holds"]
                            if not isinstance(data__gaps_item__holds, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".gaps[{data__gaps_x}].holds".format(**locals()) + " must be string")
                            if isinstance(data__gaps_item__holds, str):
                                data__gaps_item__holds_len = len(data__gaps_item__holds)
                                if data__gaps_item__holds_len < 1:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".gaps[{data__gaps_x}].holds".format(**locals()) + " must be longer than or equal to 1 characters")
                        if "source" in data__gaps_item_keys:
                            data__gaps_item_keys.remove("source")
                            data__gaps_item__source = data__gaps_item["source"]
                            if not isinstance(data__gaps_item__source, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".gaps[{data__gaps_x}].source".format(**locals()) + " must be string")
                            if isinstance(data__gaps_item__source, str):
                                data__gaps_item__source_len = len(data__gaps_item__source)
                                if data__gaps_item__source_len < 1:
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".gaps[{data__gaps_x}].source".format(**locals()) + " must be longer than or equal to 1 characters")
                        if data__gaps_item_keys:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".gaps[{data__gaps_x}]".format(**locals()) + " must not contain "+str(data__gaps_item_keys)+" properties")
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties")
    return data

def validate____defs_acceleratorrow(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data_keys = set(data.keys())
        if "arch" in data_keys:
            data_keys.remove("arch")
            data__arch = data["arch"]
            if not (isinstance(data__arch, str) and data__arch == 'x86_64' or isinstance(data__arch, str) and data__arch == 'aarch64'):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".arch must be one of ['x86_64', 'aarch64']")
        if "blas" in data_keys:
            data_keys.remove("blas")
            data__blas = data["blas"]
            if not isinstance(data__blas, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".blas must be string")
            if isinstance(data__blas, str):
                if not REGEX_PATTERNS['^[A-Za-z0-9_]+$'].search(data__blas):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".blas must match pattern ^[A-Za-z0-9_]+$")
        if "description" in data_keys:
            data_keys.remove("description")
            data__description = data["description"]
            if not isinstance(data__description, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".description must be string")
        if "environment" in data_keys:
            data_keys.remove("environment")
            data__environment = data["environment"]
            if not isinstance(data__environment, (dict)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".environment must be object")
            data__environment_is_dict = isinstance(data__environment, dict)
            if data__environment_is_dict:
                data__environment_keys = set(data__environment.keys())
                for data__environment_key in data__environment_keys:
                    if data__environment_key not in []:
                        data__environment_value = data__environment.get(data__environment_key)
                        if not isinstance(data__environment_value, (str)):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".environment.{data__environment_key}".format(**locals()) + " must be string")
                data__environment_len = len(data__environment)
                if data__environment_len != 0:
                    data__environment_property_names = True
                    for data__environment_key in data__environment:
                        try:
                            if isinstance(data__environment_key, str):
                                if not REGEX_PATTERNS['^[A-Z][A-Z0-9_]*$'].search(data__environment_key):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".environment must match pattern ^[A-Z][A-Z0-9_]*$")
                        except (JsonSchemaValueException, JsonSchemaValuesException):
                            data__environment_property_names = False
                    if not data__environment_property_names:
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".environment must be named by propertyName definition")
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties")
    return data

def validate____defs_isarow(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data_keys = set(data.keys())
        if "arch" in data_keys:
            data_keys.remove("arch")
            data__arch = data["arch"]
            if not (isinstance(data__arch, str) and data__arch == 'x86_64' or isinstance(data__arch, str) and data__arch == 'aarch64'):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".arch must be one of ['x86_64', 'aarch64']")
        if "flags" in data_keys:
            data_keys.remove("flags")
            data__flags = data["flags"]
            if not isinstance(data__flags, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".flags must be array")
            data__flags_is_list = isinstance(data__flags, (list, tuple))
            if data__flags_is_list:
                data__flags_len = len(data__flags)
                for data__flags_x, data__flags_item in enumerate(data__flags):
                    if not isinstance(data__flags_item, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".flags[{data__flags_x}]".format(**locals()) + " must be string")
                    if isinstance(data__flags_item, str):
                        if not REGEX_PATTERNS['^-[A-Za-z0-9=.+,_-]+$'].search(data__flags_item):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".flags[{data__flags_x}]".format(**locals()) + " must match pattern ^-[A-Za-z0-9=.+,_-]+$")
        if "msvc" in data_keys:
            data_keys.remove("msvc")
            data__msvc = data["msvc"]
            if not isinstance(data__msvc, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".msvc must be string")
            if isinstance(data__msvc, str):
                if not REGEX_PATTERNS['^([/-][A-Za-z0-9:=.+,_-]+( [/-][A-Za-z0-9:=.+,_-]+)*)?$'].search(data__msvc):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".msvc must match pattern ^([/-][A-Za-z0-9:=.+,_-]+( [/-][A-Za-z0-9:=.+,_-]+)*)?$")
        if "cpuinfo" in data_keys:
            data_keys.remove("cpuinfo")
            data__cpuinfo = data["cpuinfo"]
            if not isinstance(data__cpuinfo, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".cpuinfo must be array")
            data__cpuinfo_is_list = isinstance(data__cpuinfo, (list, tuple))
            if data__cpuinfo_is_list:
                data__cpuinfo_len = len(data__cpuinfo)
                for data__cpuinfo_x, data__cpuinfo_item in enumerate(data__cpuinfo):
                    if not isinstance(data__cpuinfo_item, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".cpuinfo[{data__cpuinfo_x}]".format(**locals()) + " must be string")
                    if isinstance(data__cpuinfo_item, str):
                        if not REGEX_PATTERNS['^[a-z0-9_]+$'].search(data__cpuinfo_item):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".cpuinfo[{data__cpuinfo_x}]".format(**locals()) + " must match pattern ^[a-z0-9_]+$")
        if "disable" in data_keys:
            data_keys.remove("disable")
            data__disable = data["disable"]
            if not isinstance(data__disable, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".disable must be array")
            data__disable_is_list = isinstance(data__disable, (list, tuple))
            if data__disable_is_list:
                data__disable_len = len(data__disable)
                for data__disable_x, data__disable_item in enumerate(data__disable):
                    if not isinstance(data__disable_item, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".disable[{data__disable_x}]".format(**locals()) + " must be string")
                    if isinstance(data__disable_item, str):
                        if not REGEX_PATTERNS['^[A-Z0-9_]+$'].search(data__disable_item):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".disable[{data__disable_x}]".format(**locals()) + " must match pattern ^[A-Z0-9_]+$")
        if "cpus" in data_keys:
            data_keys.remove("cpus")
            data__cpus = data["cpus"]
            if not isinstance(data__cpus, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".cpus must be array")
            data__cpus_is_list = isinstance(data__cpus, (list, tuple))
            if data__cpus_is_list:
                data__cpus_len = len(data__cpus)
                for data__cpus_x, data__cpus_item in enumerate(data__cpus):
                    if not isinstance(data__cpus_item, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".cpus[{data__cpus_x}]".format(**locals()) + " must be string")
        if "capabilities" in data_keys:
            data_keys.remove("capabilities")
            data__capabilities = data["capabilities"]
            if not isinstance(data__capabilities, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".capabilities must be array")
            data__capabilities_is_list = isinstance(data__capabilities, (list, tuple))
            if data__capabilities_is_list:
                data__capabilities_len = len(data__capabilities)
                for data__capabilities_x, data__capabilities_item in enumerate(data__capabilities):
                    if not (isinstance(data__capabilities_item, str) and data__capabilities_item == 'DEFAULT' or isinstance(data__capabilities_item, str) and data__capabilities_item == 'AVX2' or isinstance(data__capabilities_item, str) and data__capabilities_item == 'AVX512' or isinstance(data__capabilities_item, str) and data__capabilities_item == 'SVE256' or isinstance(data__capabilities_item, str) and data__capabilities_item == 'VSX' or isinstance(data__capabilities_item, str) and data__capabilities_item == 'ZVECTOR'):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".capabilities[{data__capabilities_x}]".format(**locals()) + " must be one of ['DEFAULT', 'AVX2', 'AVX512', 'SVE256', 'VSX', 'ZVECTOR']")
        if "choose_when" in data_keys:
            data_keys.remove("choose_when")
            data__choosewhen = data["choose_when"]
            if not isinstance(data__choosewhen, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".choose_when must be string")
        if "rank" in data_keys:
            data_keys.remove("rank")
            data__rank = data["rank"]
            if not isinstance(data__rank, (int)) and not (isinstance(data__rank, float) and data__rank.is_integer()) or isinstance(data__rank, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".rank must be integer")
            if isinstance(data__rank, (int, float, Decimal)) and not isinstance(data__rank, bool):
                if data__rank < 0:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".rank must be bigger than or equal to 0")
                if data__rank > 1000:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".rank must be smaller than or equal to 1000")
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties")
    return data

def validate____defs_pythonrow(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data_keys = set(data.keys())
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties")
    return data

def validate____defs_minorcompatrow(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data_keys = set(data.keys())
        if "driver" in data_keys:
            data_keys.remove("driver")
            data__driver = data["driver"]
            if not isinstance(data__driver, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".driver must be string")
            if isinstance(data__driver, str):
                if not REGEX_PATTERNS['^[0-9]+(\\.[0-9]+)*$'].search(data__driver):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".driver must match pattern ^[0-9]+(\\.[0-9]+)*$")
        if "windows_driver" in data_keys:
            data_keys.remove("windows_driver")
            data__windowsdriver = data["windows_driver"]
            if not isinstance(data__windowsdriver, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".windows_driver must be string")
            if isinstance(data__windowsdriver, str):
                if not REGEX_PATTERNS['^([0-9]+(\\.[0-9]+)*)?$'].search(data__windowsdriver):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".windows_driver must match pattern ^([0-9]+(\\.[0-9]+)*)?$")
        if "source" in data_keys:
            data_keys.remove("source")
            data__source = data["source"]
            if not isinstance(data__source, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".source must be string")
            if isinstance(data__source, str):
                data__source_len = len(data__source)
                if data__source_len < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".source must be longer than or equal to 1 characters")
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties")
    return data

def validate____defs_toolkitrow(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data_keys = set(data.keys())
        if "driver" in data_keys:
            data_keys.remove("driver")
            data__driver = data["driver"]
            if not isinstance(data__driver, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".driver must be string")
            if isinstance(data__driver, str):
                if not REGEX_PATTERNS['^[0-9]+(\\.[0-9]+)*$'].search(data__driver):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".driver must match pattern ^[0-9]+(\\.[0-9]+)*$")
        if "windows_driver" in data_keys:
            data_keys.remove("windows_driver")
            data__windowsdriver = data["windows_driver"]
            if not isinstance(data__windowsdriver, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".windows_driver must be string")
            if isinstance(data__windowsdriver, str):
                if not REGEX_PATTERNS['^[0-9]+(\\.[0-9]+)*$'].search(data__windowsdriver):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".windows_driver must match pattern ^[0-9]+(\\.[0-9]+)*$")
        if "gcc" in data_keys:
            data_keys.remove("gcc")
            data__gcc = data["gcc"]
            if not isinstance(data__gcc, (int)) and not (isinstance(data__gcc, float) and data__gcc.is_integer()) or isinstance(data__gcc, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".gcc must be integer")
            if isinstance(data__gcc, (int, float, Decimal)) and not isinstance(data__gcc, bool):
                if data__gcc < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".gcc must be bigger than or equal to 1")
        if "msvc" in data_keys:
            data_keys.remove("msvc")
            data__msvc = data["msvc"]
            if not isinstance(data__msvc, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".msvc must be array")
            data__msvc_is_list = isinstance(data__msvc, (list, tuple))
            if data__msvc_is_list:
                data__msvc_len = len(data__msvc)
                if data__msvc_len < 2:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".msvc must contain at least 2 items")
                if data__msvc_len > 2:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".msvc must contain less than or equal to 2 items")
                for data__msvc_x, data__msvc_item in enumerate(data__msvc):
                    if not isinstance(data__msvc_item, (int)) and not (isinstance(data__msvc_item, float) and data__msvc_item.is_integer()) or isinstance(data__msvc_item, bool):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".msvc[{data__msvc_x}]".format(**locals()) + " must be integer")
                    if isinstance(data__msvc_item, (int, float, Decimal)) and not isinstance(data__msvc_item, bool):
                        if data__msvc_item < 1900:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".msvc[{data__msvc_x}]".format(**locals()) + " must be bigger than or equal to 1900")
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties")
    return data

def validate____defs_cudarow(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data_keys = set(data.keys())
        if "driver" in data_keys:
            data_keys.remove("driver")
            data__driver = data["driver"]
            if not isinstance(data__driver, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".driver must be string")
            if isinstance(data__driver, str):
                if not REGEX_PATTERNS['^[0-9]+(\\.[0-9]+)*$'].search(data__driver):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".driver must match pattern ^[0-9]+(\\.[0-9]+)*$")
        if "windows_driver" in data_keys:
            data_keys.remove("windows_driver")
            data__windowsdriver = data["windows_driver"]
            if not isinstance(data__windowsdriver, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".windows_driver must be string")
            if isinstance(data__windowsdriver, str):
                if not REGEX_PATTERNS['^[0-9]+(\\.[0-9]+)*$'].search(data__windowsdriver):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".windows_driver must match pattern ^[0-9]+(\\.[0-9]+)*$")
        if "capabilities" in data_keys:
            data_keys.remove("capabilities")
            data__capabilities = data["capabilities"]
            if not isinstance(data__capabilities, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".capabilities must be array")
            data__capabilities_is_list = isinstance(data__capabilities, (list, tuple))
            if data__capabilities_is_list:
                data__capabilities_len = len(data__capabilities)
                for data__capabilities_x, data__capabilities_item in enumerate(data__capabilities):
                    if not isinstance(data__capabilities_item, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".capabilities[{data__capabilities_x}]".format(**locals()) + " must be string")
        if "gcc" in data_keys:
            data_keys.remove("gcc")
            data__gcc = data["gcc"]
            if not isinstance(data__gcc, (int)) and not (isinstance(data__gcc, float) and data__gcc.is_integer()) or isinstance(data__gcc, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".gcc must be integer")
            if isinstance(data__gcc, (int, float, Decimal)) and not isinstance(data__gcc, bool):
                if data__gcc < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".gcc must be bigger than or equal to 1")
        if "msvc" in data_keys:
            data_keys.remove("msvc")
            data__msvc = data["msvc"]
            if not isinstance(data__msvc, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".msvc must be array")
            data__msvc_is_list = isinstance(data__msvc, (list, tuple))
            if data__msvc_is_list:
                data__msvc_len = len(data__msvc)
                if data__msvc_len < 2:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".msvc must contain at least 2 items")
                if data__msvc_len > 2:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".msvc must contain less than or equal to 2 items")
                for data__msvc_x, data__msvc_item in enumerate(data__msvc):
                    if not isinstance(data__msvc_item, (int)) and not (isinstance(data__msvc_item, float) and data__msvc_item.is_integer()) or isinstance(data__msvc_item, bool):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".msvc[{data__msvc_x}]".format(**locals()) + " must be integer")
                    if isinstance(data__msvc_item, (int, float, Decimal)) and not isinstance(data__msvc_item, bool):
                        if data__msvc_item < 1900:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".msvc[{data__msvc_x}]".format(**locals()) + " must be bigger than or equal to 1900")
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties")
    return data

def validate____defs_smrow(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data_keys = set(data.keys())
        if "capability" in data_keys:
            data_keys.remove("capability")
            data__capability = data["capability"]
            if not isinstance(data__capability, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".capability must be string")
            if isinstance(data__capability, str):
                if not REGEX_PATTERNS['^[0-9]+\\.[0-9]+$'].search(data__capability):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".capability must match pattern ^[0-9]+\\.[0-9]+$")
        if "family" in data_keys:
            data_keys.remove("family")
            data__family = data["family"]
            if not isinstance(data__family, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".family must be string")
        if "min_cuda" in data_keys:
            data_keys.remove("min_cuda")
            data__mincuda = data["min_cuda"]
            validate____defs_version(data__mincuda, custom_formats, (name_prefix or "data") + ".min_cuda")
        if "max_cuda" in data_keys:
            data_keys.remove("max_cuda")
            data__maxcuda = data["max_cuda"]
            data__maxcuda_one_of_count8 = 0
            if data__maxcuda_one_of_count8 < 2:
                try:
                    validate____defs_version(data__maxcuda, custom_formats, (name_prefix or "data") + ".max_cuda")
                    data__maxcuda_one_of_count8 += 1
                except (JsonSchemaValueException, JsonSchemaValuesException): pass
            if data__maxcuda_one_of_count8 < 2:
                try:
                    if not isinstance(data__maxcuda, (NoneType)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".max_cuda must be null")
                    data__maxcuda_one_of_count8 += 1
                except (JsonSchemaValueException, JsonSchemaValuesException): pass
            if data__maxcuda_one_of_count8 != 1:
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".max_cuda must be valid exactly by one definition")
        if "jetson" in data_keys:
            data_keys.remove("jetson")
            data__jetson = data["jetson"]
            if not isinstance(data__jetson, (bool)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".jetson must be boolean")
        if "hosts" in data_keys:
            data_keys.remove("hosts")
            data__hosts = data["hosts"]
            if not isinstance(data__hosts, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".hosts must be array")
            data__hosts_is_list = isinstance(data__hosts, (list, tuple))
            if data__hosts_is_list:
                data__hosts_len = len(data__hosts)
                if data__hosts_len < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".hosts must contain at least 1 items")
                for data__hosts_x, data__hosts_item in enumerate(data__hosts):
                    if not (isinstance(data__hosts_item, str) and data__hosts_item == 'x86_64' or isinstance(data__hosts_item, str) and data__hosts_item == 'aarch64'):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".hosts[{data__hosts_x}]".format(**locals()) + " must be one of ['x86_64', 'aarch64']")
        if "cudnn" in data_keys:
            data_keys.remove("cudnn")
            data__cudnn = data["cudnn"]
            if not isinstance(data__cudnn, (bool)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".cudnn must be boolean")
        if "older_cudnn" in data_keys:
            data_keys.remove("older_cudnn")
            data__oldercudnn = data["older_cudnn"]
            if not isinstance(data__oldercudnn, (dict)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".older_cudnn must be object")
            data__oldercudnn_is_dict = isinstance(data__oldercudnn, dict)
            if data__oldercudnn_is_dict:
                data__oldercudnn__missing_keys = set(['version', 'cuda', 'source']) - data__oldercudnn.keys()
                if data__oldercudnn__missing_keys:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".older_cudnn must contain ")
                data__oldercudnn_keys = set(data__oldercudnn.keys())
                if "version" in data__oldercudnn_keys:
                    data__oldercudnn_keys.remove("version")
                    data__oldercudnn__version = data__oldercudnn["version"]
                    validate____defs_version(data__oldercudnn__version, custom_formats, (name_prefix or "data") + ".older_cudnn.version")
                if "cuda" in data__oldercudnn_keys:
                    data__oldercudnn_keys.remove("cuda")
                    data__oldercudnn__cuda = data__oldercudnn["cuda"]
                    validate____defs_versionrange(data__oldercudnn__cuda, custom_formats, (name_prefix or "data") + ".older_cudnn.cuda")
                if "source" in data__oldercudnn_keys:
                    data__oldercudnn_keys.remove("source")
                    data__oldercudnn__source = data__oldercudnn["source"]
                    if not isinstance(data__oldercudnn__source, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".older_cudnn.source must be string")
                if data__oldercudnn_keys:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".older_cudnn must not contain "+str(data__oldercudnn_keys)+" properties")
        if "driver_branch" in data_keys:
            data_keys.remove("driver_branch")
            data__driverbranch = data["driver_branch"]
            if not isinstance(data__driverbranch, (int)) and not (isinstance(data__driverbranch, float) and data__driverbranch.is_integer()) or isinstance(data__driverbranch, bool):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".driver_branch must be integer")
            if isinstance(data__driverbranch, (int, float, Decimal)) and not isinstance(data__driverbranch, bool):
                if data__driverbranch < 1:
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".driver_branch must be bigger than or equal to 1")
        if "gpus" in data_keys:
            data_keys.remove("gpus")
            data__gpus = data["gpus"]
            if not isinstance(data__gpus, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".gpus must be array")
            data__gpus_is_list = isinstance(data__gpus, (list, tuple))
            if data__gpus_is_list:
                data__gpus_len = len(data__gpus)
                for data__gpus_x, data__gpus_item in enumerate(data__gpus):
                    if not isinstance(data__gpus_item, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".gpus[{data__gpus_x}]".format(**locals()) + " must be string")
        if "names" in data_keys:
            data_keys.remove("names")
            data__names = data["names"]
            if not isinstance(data__names, (list, tuple)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".names must be array")
            data__names_is_list = isinstance(data__names, (list, tuple))
            if data__names_is_list:
                data__names_len = len(data__names)
                for data__names_x, data__names_item in enumerate(data__names):
                    if not isinstance(data__names_item, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".names[{data__names_x}]".format(**locals()) + " must be string")
        if "pytorch" in data_keys:
            data_keys.remove("pytorch")
            data__pytorch = data["pytorch"]
            validate____defs_versionrange(data__pytorch, custom_formats, (name_prefix or "data") + ".pytorch")
        if "upstream_wheels" in data_keys:
            data_keys.remove("upstream_wheels")
            data__upstreamwheels = data["upstream_wheels"]
            if not isinstance(data__upstreamwheels, (bool)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".upstream_wheels must be boolean")
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties")
    return data

def validate____defs_anymatch(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data_len = len(data)
        if data_len < 1:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain at least 1 properties")
        data_keys = set(data.keys())
        if "kind" in data_keys:
            data_keys.remove("kind")
            data__kind = data["kind"]
            data__kind_one_of_count9 = 0
            if data__kind_one_of_count9 < 2:
                try:
                    if not (isinstance(data__kind, str) and data__kind == 'gpu' or isinstance(data__kind, str) and data__kind == 'cpu' or isinstance(data__kind, str) and data__kind == 'darwin' or isinstance(data__kind, str) and data__kind == 'rocm'):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".kind must be one of ['gpu', 'cpu', 'darwin', 'rocm']")
                    data__kind_one_of_count9 += 1
                except (JsonSchemaValueException, JsonSchemaValuesException): pass
            if data__kind_one_of_count9 < 2:
                try:
                    if not isinstance(data__kind, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".kind must be array")
                    data__kind_is_list = isinstance(data__kind, (list, tuple))
                    if data__kind_is_list:
                        data__kind_len = len(data__kind)
                        if data__kind_len < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".kind must contain at least 1 items")
                        for data__kind_x, data__kind_item in enumerate(data__kind):
                            if not (isinstance(data__kind_item, str) and data__kind_item == 'gpu' or isinstance(data__kind_item, str) and data__kind_item == 'cpu' or isinstance(data__kind_item, str) and data__kind_item == 'darwin' or isinstance(data__kind_item, str) and data__kind_item == 'rocm'):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".kind[{data__kind_x}]".format(**locals()) + " must be one of ['gpu', 'cpu', 'darwin', 'rocm']")
                    data__kind_one_of_count9 += 1
                except (JsonSchemaValueException, JsonSchemaValuesException): pass
            if data__kind_one_of_count9 != 1:
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".kind must be valid exactly by one definition")
        if "python" in data_keys:
            data_keys.remove("python")
            data__python = data["python"]
            data__python_one_of_count10 = 0
            if data__python_one_of_count10 < 2:
                try:
                    validate____defs_version(data__python, custom_formats, (name_prefix or "data") + ".python")
                    data__python_one_of_count10 += 1
                except (JsonSchemaValueException, JsonSchemaValuesException): pass
            if data__python_one_of_count10 < 2:
                try:
                    if not isinstance(data__python, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".python must be array")
                    data__python_is_list = isinstance(data__python, (list, tuple))
                    if data__python_is_list:
                        data__python_len = len(data__python)
                        if data__python_len < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".python must contain at least 1 items")
                        for data__python_x, data__python_item in enumerate(data__python):
                            validate____defs_version(data__python_item, custom_formats, (name_prefix or "data") + ".python[{data__python_x}]".format(**locals()))
                    data__python_one_of_count10 += 1
                except (JsonSchemaValueException, JsonSchemaValuesException): pass
            if data__python_one_of_count10 != 1:
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".python must be valid exactly by one definition")
        if "cuda" in data_keys:
            data_keys.remove("cuda")
            data__cuda = data["cuda"]
            data__cuda_one_of_count11 = 0
            if data__cuda_one_of_count11 < 2:
                try:
                    validate____defs_version(data__cuda, custom_formats, (name_prefix or "data") + ".cuda")
                    data__cuda_one_of_count11 += 1
                except (JsonSchemaValueException, JsonSchemaValuesException): pass
            if data__cuda_one_of_count11 < 2:
                try:
                    if not isinstance(data__cuda, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".cuda must be array")
                    data__cuda_is_list = isinstance(data__cuda, (list, tuple))
                    if data__cuda_is_list:
                        data__cuda_len = len(data__cuda)
                        if data__cuda_len < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".cuda must contain at least 1 items")
                        for data__cuda_x, data__cuda_item in enumerate(data__cuda):
                            validate____defs_version(data__cuda_item, custom_formats, (name_prefix or "data") + ".cuda[{data__cuda_x}]".format(**locals()))
                    data__cuda_one_of_count11 += 1
                except (JsonSchemaValueException, JsonSchemaValuesException): pass
            if data__cuda_one_of_count11 != 1:
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".cuda must be valid exactly by one definition")
        if "sm" in data_keys:
            data_keys.remove("sm")
            data__sm = data["sm"]
            data__sm_one_of_count12 = 0
            if data__sm_one_of_count12 < 2:
                try:
                    if not isinstance(data__sm, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".sm must be string")
                    data__sm_one_of_count12 += 1
                except (JsonSchemaValueException, JsonSchemaValuesException): pass
            if data__sm_one_of_count12 < 2:
                try:
                    if not isinstance(data__sm, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".sm must be array")
                    data__sm_is_list = isinstance(data__sm, (list, tuple))
                    if data__sm_is_list:
                        data__sm_len = len(data__sm)
                        if data__sm_len < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".sm must contain at least 1 items")
                        for data__sm_x, data__sm_item in enumerate(data__sm):
                            if not isinstance(data__sm_item, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".sm[{data__sm_x}]".format(**locals()) + " must be string")
                    data__sm_one_of_count12 += 1
                except (JsonSchemaValueException, JsonSchemaValuesException): pass
            if data__sm_one_of_count12 != 1:
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".sm must be valid exactly by one definition")
        if "isa" in data_keys:
            data_keys.remove("isa")
            data__isa = data["isa"]
            data__isa_one_of_count13 = 0
            if data__isa_one_of_count13 < 2:
                try:
                    if not isinstance(data__isa, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".isa must be string")
                    data__isa_one_of_count13 += 1
                except (JsonSchemaValueException, JsonSchemaValuesException): pass
            if data__isa_one_of_count13 < 2:
                try:
                    if not isinstance(data__isa, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".isa must be array")
                    data__isa_is_list = isinstance(data__isa, (list, tuple))
                    if data__isa_is_list:
                        data__isa_len = len(data__isa)
                        if data__isa_len < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".isa must contain at least 1 items")
                        for data__isa_x, data__isa_item in enumerate(data__isa):
                            if not isinstance(data__isa_item, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".isa[{data__isa_x}]".format(**locals()) + " must be string")
                    data__isa_one_of_count13 += 1
                except (JsonSchemaValueException, JsonSchemaValuesException): pass
            if data__isa_one_of_count13 != 1:
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".isa must be valid exactly by one definition")
        if "accelerator" in data_keys:
            data_keys.remove("accelerator")
            data__accelerator = data["accelerator"]
            data__accelerator_one_of_count14 = 0
            if data__accelerator_one_of_count14 < 2:
                try:
                    if not isinstance(data__accelerator, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".accelerator must be string")
                    data__accelerator_one_of_count14 += 1
                except (JsonSchemaValueException, JsonSchemaValuesException): pass
            if data__accelerator_one_of_count14 < 2:
                try:
                    if not isinstance(data__accelerator, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".accelerator must be array")
                    data__accelerator_is_list = isinstance(data__accelerator, (list, tuple))
                    if data__accelerator_is_list:
                        data__accelerator_len = len(data__accelerator)
                        if data__accelerator_len < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".accelerator must contain at least 1 items")
                        for data__accelerator_x, data__accelerator_item in enumerate(data__accelerator):
                            if not isinstance(data__accelerator_item, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".accelerator[{data__accelerator_x}]".format(**locals()) + " must be string")
                    data__accelerator_one_of_count14 += 1
                except (JsonSchemaValueException, JsonSchemaValuesException): pass
            if data__accelerator_one_of_count14 != 1:
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".accelerator must be valid exactly by one definition")
        if "rocm" in data_keys:
            data_keys.remove("rocm")
            data__rocm = data["rocm"]
            data__rocm_one_of_count15 = 0
            if data__rocm_one_of_count15 < 2:
                try:
                    validate____defs_version(data__rocm, custom_formats, (name_prefix or "data") + ".rocm")
                    data__rocm_one_of_count15 += 1
                except (JsonSchemaValueException, JsonSchemaValuesException): pass
            if data__rocm_one_of_count15 < 2:
                try:
                    if not isinstance(data__rocm, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".rocm must be array")
                    data__rocm_is_list = isinstance(data__rocm, (list, tuple))
                    if data__rocm_is_list:
                        data__rocm_len = len(data__rocm)
                        if data__rocm_len < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".rocm must contain at least 1 items")
                        for data__rocm_x, data__rocm_item in enumerate(data__rocm):
                            validate____defs_version(data__rocm_item, custom_formats, (name_prefix or "data") + ".rocm[{data__rocm_x}]".format(**locals()))
                    data__rocm_one_of_count15 += 1
                except (JsonSchemaValueException, JsonSchemaValuesException): pass
            if data__rocm_one_of_count15 != 1:
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".rocm must be valid exactly by one definition")
        if "gfx" in data_keys:
            data_keys.remove("gfx")
            data__gfx = data["gfx"]
            data__gfx_one_of_count16 = 0
            if data__gfx_one_of_count16 < 2:
                try:
                    if not isinstance(data__gfx, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".gfx must be string")
                    data__gfx_one_of_count16 += 1
                except (JsonSchemaValueException, JsonSchemaValuesException): pass
            if data__gfx_one_of_count16 < 2:
                try:
                    if not isinstance(data__gfx, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".gfx must be array")
                    data__gfx_is_list = isinstance(data__gfx, (list, tuple))
                    if data__gfx_is_list:
                        data__gfx_len = len(data__gfx)
                        if data__gfx_len < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".gfx must contain at least 1 items")
                        for data__gfx_x, data__gfx_item in enumerate(data__gfx):
                            if not isinstance(data__gfx_item, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".gfx[{data__gfx_x}]".format(**locals()) + " must be string")
                    data__gfx_one_of_count16 += 1
                except (JsonSchemaValueException, JsonSchemaValuesException): pass
            if data__gfx_one_of_count16 != 1:
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".gfx must be valid exactly by one definition")
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties")
    return data

def validate____defs_rocmcombination(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data__missing_keys = set(['gfx', 'isa', 'python', 'rocm']) - data.keys()
        if data__missing_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain ")
        data_keys = set(data.keys())
        if "python" in data_keys:
            data_keys.remove("python")
            data__python = data["python"]
            validate____defs_version(data__python, custom_formats, (name_prefix or "data") + ".python")
        if "rocm" in data_keys:
            data_keys.remove("rocm")
            data__rocm = data["rocm"]
            validate____defs_version(data__rocm, custom_formats, (name_prefix or "data") + ".rocm")
        if "gfx" in data_keys:
            data_keys.remove("gfx")
            data__gfx = data["gfx"]
            if not isinstance(data__gfx, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".gfx must be string")
        if "isa" in data_keys:
            data_keys.remove("isa")
            data__isa = data["isa"]
            if not isinstance(data__isa, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".isa must be string")
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties")
    return data

def validate____defs_rocmmatch(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data_len = len(data)
        if data_len < 1:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain at least 1 properties")
        data_keys = set(data.keys())
        if "python" in data_keys:
            data_keys.remove("python")
            data__python = data["python"]
            data__python_one_of_count17 = 0
            if data__python_one_of_count17 < 2:
                try:
                    validate____defs_version(data__python, custom_formats, (name_prefix or "data") + ".python")
                    data__python_one_of_count17 += 1
                except (JsonSchemaValueException, JsonSchemaValuesException): pass
            if data__python_one_of_count17 < 2:
                try:
                    if not isinstance(data__python, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".python must be array")
                    data__python_is_list = isinstance(data__python, (list, tuple))
                    if data__python_is_list:
                        data__python_len = len(data__python)
                        if data__python_len < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".python must contain at least 1 items")
                        for data__python_x, data__python_item in enumerate(data__python):
                            validate____defs_version(data__python_item, custom_formats, (name_prefix or "data") + ".python[{data__python_x}]".format(**locals()))
                    data__python_one_of_count17 += 1
                except (JsonSchemaValueException, JsonSchemaValuesException): pass
            if data__python_one_of_count17 != 1:
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".python must be valid exactly by one definition")
        if "rocm" in data_keys:
            data_keys.remove("rocm")
            data__rocm = data["rocm"]
            data__rocm_one_of_count18 = 0
            if data__rocm_one_of_count18 < 2:
                try:
                    validate____defs_version(data__rocm, custom_formats, (name_prefix or "data") + ".rocm")
                    data__rocm_one_of_count18 += 1
                except (JsonSchemaValueException, JsonSchemaValuesException): pass
            if data__rocm_one_of_count18 < 2:
                try:
                    if not isinstance(data__rocm, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".rocm must be array")
                    data__rocm_is_list = isinstance(data__rocm, (list, tuple))
                    if data__rocm_is_list:
                        data__rocm_len = len(data__rocm)
                        if data__rocm_len < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".rocm must contain at least 1 items")
                        for data__rocm_x, data__rocm_item in enumerate(data__rocm):
                            validate____defs_version(data__rocm_item, custom_formats, (name_prefix or "data") + ".rocm[{data__rocm_x}]".format(**locals()))
                    data__rocm_one_of_count18 += 1
                except (JsonSchemaValueException, JsonSchemaValuesException): pass
            if data__rocm_one_of_count18 != 1:
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".rocm must be valid exactly by one definition")
        if "gfx" in data_keys:
            data_keys.remove("gfx")
            data__gfx = data["gfx"]
            data__gfx_one_of_count19 = 0
            if data__gfx_one_of_count19 < 2:
                try:
                    if not isinstance(data__gfx, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".gfx must be string")
                    data__gfx_one_of_count19 += 1
                except (JsonSchemaValueException, JsonSchemaValuesException): pass
            if data__gfx_one_of_count19 < 2:
                try:
                    if not isinstance(data__gfx, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".gfx must be array")
                    data__gfx_is_list = isinstance(data__gfx, (list, tuple))
                    if data__gfx_is_list:
                        data__gfx_len = len(data__gfx)
                        if data__gfx_len < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".gfx must contain at least 1 items")
                        for data__gfx_x, data__gfx_item in enumerate(data__gfx):
                            if not isinstance(data__gfx_item, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".gfx[{data__gfx_x}]".format(**locals()) + " must be string")
                    data__gfx_one_of_count19 += 1
                except (JsonSchemaValueException, JsonSchemaValuesException): pass
            if data__gfx_one_of_count19 != 1:
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".gfx must be valid exactly by one definition")
        if "isa" in data_keys:
            data_keys.remove("isa")
            data__isa = data["isa"]
            data__isa_one_of_count20 = 0
            if data__isa_one_of_count20 < 2:
                try:
                    if not isinstance(data__isa, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".isa must be string")
                    data__isa_one_of_count20 += 1
                except (JsonSchemaValueException, JsonSchemaValuesException): pass
            if data__isa_one_of_count20 < 2:
                try:
                    if not isinstance(data__isa, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".isa must be array")
                    data__isa_is_list = isinstance(data__isa, (list, tuple))
                    if data__isa_is_list:
                        data__isa_len = len(data__isa)
                        if data__isa_len < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".isa must contain at least 1 items")
                        for data__isa_x, data__isa_item in enumerate(data__isa):
                            if not isinstance(data__isa_item, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".isa[{data__isa_x}]".format(**locals()) + " must be string")
                    data__isa_one_of_count20 += 1
                except (JsonSchemaValueException, JsonSchemaValuesException): pass
            if data__isa_one_of_count20 != 1:
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".isa must be valid exactly by one definition")
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties")
    return data

def validate____defs_darwincombination(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data__missing_keys = set(['accelerator', 'python']) - data.keys()
        if data__missing_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain ")
        data_keys = set(data.keys())
        if "python" in data_keys:
            data_keys.remove("python")
            data__python = data["python"]
            validate____defs_version(data__python, custom_formats, (name_prefix or "data") + ".python")
        if "accelerator" in data_keys:
            data_keys.remove("accelerator")
            data__accelerator = data["accelerator"]
            if not isinstance(data__accelerator, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".accelerator must be string")
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties")
    return data

def validate____defs_darwinmatch(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data_len = len(data)
        if data_len < 1:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain at least 1 properties")
        data_keys = set(data.keys())
        if "python" in data_keys:
            data_keys.remove("python")
            data__python = data["python"]
            data__python_one_of_count21 = 0
            if data__python_one_of_count21 < 2:
                try:
                    validate____defs_version(data__python, custom_formats, (name_prefix or "data") + ".python")
                    data__python_one_of_count21 += 1
                except (JsonSchemaValueException, JsonSchemaValuesException): pass
            if data__python_one_of_count21 < 2:
                try:
                    if not isinstance(data__python, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".python must be array")
                    data__python_is_list = isinstance(data__python, (list, tuple))
                    if data__python_is_list:
                        data__python_len = len(data__python)
                        if data__python_len < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".python must contain at least 1 items")
                        for data__python_x, data__python_item in enumerate(data__python):
                            validate____defs_version(data__python_item, custom_formats, (name_prefix or "data") + ".python[{data__python_x}]".format(**locals()))
                    data__python_one_of_count21 += 1
                except (JsonSchemaValueException, JsonSchemaValuesException): pass
            if data__python_one_of_count21 != 1:
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".python must be valid exactly by one definition")
        if "accelerator" in data_keys:
            data_keys.remove("accelerator")
            data__accelerator = data["accelerator"]
            data__accelerator_one_of_count22 = 0
            if data__accelerator_one_of_count22 < 2:
                try:
                    if not isinstance(data__accelerator, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".accelerator must be string")
                    data__accelerator_one_of_count22 += 1
                except (JsonSchemaValueException, JsonSchemaValuesException): pass
            if data__accelerator_one_of_count22 < 2:
                try:
                    if not isinstance(data__accelerator, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".accelerator must be array")
                    data__accelerator_is_list = isinstance(data__accelerator, (list, tuple))
                    if data__accelerator_is_list:
                        data__accelerator_len = len(data__accelerator)
                        if data__accelerator_len < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".accelerator must contain at least 1 items")
                        for data__accelerator_x, data__accelerator_item in enumerate(data__accelerator):
                            if not isinstance(data__accelerator_item, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".accelerator[{data__accelerator_x}]".format(**locals()) + " must be string")
                    data__accelerator_one_of_count22 += 1
                except (JsonSchemaValueException, JsonSchemaValuesException): pass
            if data__accelerator_one_of_count22 != 1:
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".accelerator must be valid exactly by one definition")
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties")
    return data

def validate____defs_cpucombination(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data__missing_keys = set(['isa', 'python']) - data.keys()
        if data__missing_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain ")
        data_keys = set(data.keys())
        if "python" in data_keys:
            data_keys.remove("python")
            data__python = data["python"]
            validate____defs_version(data__python, custom_formats, (name_prefix or "data") + ".python")
        if "isa" in data_keys:
            data_keys.remove("isa")
            data__isa = data["isa"]
            if not isinstance(data__isa, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".isa must be string")
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties")
    return data

def validate____defs_cpumatch(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data_len = len(data)
        if data_len < 1:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain at least 1 properties")
        data_keys = set(data.keys())
        if "python" in data_keys:
            data_keys.remove("python")
            data__python = data["python"]
            data__python_one_of_count23 = 0
            if data__python_one_of_count23 < 2:
                try:
                    validate____defs_version(data__python, custom_formats, (name_prefix or "data") + ".python")
                    data__python_one_of_count23 += 1
                except (JsonSchemaValueException, JsonSchemaValuesException): pass
            if data__python_one_of_count23 < 2:
                try:
                    if not isinstance(data__python, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".python must be array")
                    data__python_is_list = isinstance(data__python, (list, tuple))
                    if data__python_is_list:
                        data__python_len = len(data__python)
                        if data__python_len < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".python must contain at least 1 items")
                        for data__python_x, data__python_item in enumerate(data__python):
                            validate____defs_version(data__python_item, custom_formats, (name_prefix or "data") + ".python[{data__python_x}]".format(**locals()))
                    data__python_one_of_count23 += 1
                except (JsonSchemaValueException, JsonSchemaValuesException): pass
            if data__python_one_of_count23 != 1:
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".python must be valid exactly by one definition")
        if "isa" in data_keys:
            data_keys.remove("isa")
            data__isa = data["isa"]
            data__isa_one_of_count24 = 0
            if data__isa_one_of_count24 < 2:
                try:
                    if not isinstance(data__isa, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".isa must be string")
                    data__isa_one_of_count24 += 1
                except (JsonSchemaValueException, JsonSchemaValuesException): pass
            if data__isa_one_of_count24 < 2:
                try:
                    if not isinstance(data__isa, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".isa must be array")
                    data__isa_is_list = isinstance(data__isa, (list, tuple))
                    if data__isa_is_list:
                        data__isa_len = len(data__isa)
                        if data__isa_len < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".isa must contain at least 1 items")
                        for data__isa_x, data__isa_item in enumerate(data__isa):
                            if not isinstance(data__isa_item, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".isa[{data__isa_x}]".format(**locals()) + " must be string")
                    data__isa_one_of_count24 += 1
                except (JsonSchemaValueException, JsonSchemaValuesException): pass
            if data__isa_one_of_count24 != 1:
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".isa must be valid exactly by one definition")
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties")
    return data

def validate____defs_gpucombination(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data__missing_keys = set(['cuda', 'isa', 'python', 'sm']) - data.keys()
        if data__missing_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain ")
        data_keys = set(data.keys())
        if "python" in data_keys:
            data_keys.remove("python")
            data__python = data["python"]
            validate____defs_version(data__python, custom_formats, (name_prefix or "data") + ".python")
        if "cuda" in data_keys:
            data_keys.remove("cuda")
            data__cuda = data["cuda"]
            validate____defs_version(data__cuda, custom_formats, (name_prefix or "data") + ".cuda")
        if "sm" in data_keys:
            data_keys.remove("sm")
            data__sm = data["sm"]
            if not isinstance(data__sm, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".sm must be string")
        if "isa" in data_keys:
            data_keys.remove("isa")
            data__isa = data["isa"]
            if not isinstance(data__isa, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".isa must be string")
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties")
    return data

def validate____defs_gpumatch(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data_len = len(data)
        if data_len < 1:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain at least 1 properties")
        data_keys = set(data.keys())
        if "python" in data_keys:
            data_keys.remove("python")
            data__python = data["python"]
            data__python_one_of_count25 = 0
            if data__python_one_of_count25 < 2:
                try:
                    validate____defs_version(data__python, custom_formats, (name_prefix or "data") + ".python")
                    data__python_one_of_count25 += 1
                except (JsonSchemaValueException, JsonSchemaValuesException): pass
            if data__python_one_of_count25 < 2:
                try:
                    if not isinstance(data__python, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".python must be array")
                    data__python_is_list = isinstance(data__python, (list, tuple))
                    if data__python_is_list:
                        data__python_len = len(data__python)
                        if data__python_len < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".python must contain at least 1 items")
                        for data__python_x, data__python_item in enumerate(data__python):
                            validate____defs_version(data__python_item, custom_formats, (name_prefix or "data") + ".python[{data__python_x}]".format(**locals()))
                    data__python_one_of_count25 += 1
                except (JsonSchemaValueException, JsonSchemaValuesException): pass
            if data__python_one_of_count25 != 1:
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".python must be valid exactly by one definition")
        if "cuda" in data_keys:
            data_keys.remove("cuda")
            data__cuda = data["cuda"]
            data__cuda_one_of_count26 = 0
            if data__cuda_one_of_count26 < 2:
                try:
                    validate____defs_version(data__cuda, custom_formats, (name_prefix or "data") + ".cuda")
                    data__cuda_one_of_count26 += 1
                except (JsonSchemaValueException, JsonSchemaValuesException): pass
            if data__cuda_one_of_count26 < 2:
                try:
                    if not isinstance(data__cuda, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".cuda must be array")
                    data__cuda_is_list = isinstance(data__cuda, (list, tuple))
                    if data__cuda_is_list:
                        data__cuda_len = len(data__cuda)
                        if data__cuda_len < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".cuda must contain at least 1 items")
                        for data__cuda_x, data__cuda_item in enumerate(data__cuda):
                            validate____defs_version(data__cuda_item, custom_formats, (name_prefix or "data") + ".cuda[{data__cuda_x}]".format(**locals()))
                    data__cuda_one_of_count26 += 1
                except (JsonSchemaValueException, JsonSchemaValuesException): pass
            if data__cuda_one_of_count26 != 1:
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".cuda must be valid exactly by one definition")
        if "sm" in data_keys:
            data_keys.remove("sm")
            data__sm = data["sm"]
            data__sm_one_of_count27 = 0
            if data__sm_one_of_count27 < 2:
                try:
                    if not isinstance(data__sm, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".sm must be string")
                    data__sm_one_of_count27 += 1
                except (JsonSchemaValueException, JsonSchemaValuesException): pass
            if data__sm_one_of_count27 < 2:
                try:
                    if not isinstance(data__sm, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".sm must be array")
                    data__sm_is_list = isinstance(data__sm, (list, tuple))
                    if data__sm_is_list:
                        data__sm_len = len(data__sm)
                        if data__sm_len < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".sm must contain at least 1 items")
                        for data__sm_x, data__sm_item in enumerate(data__sm):
                            if not isinstance(data__sm_item, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".sm[{data__sm_x}]".format(**locals()) + " must be string")
                    data__sm_one_of_count27 += 1
                except (JsonSchemaValueException, JsonSchemaValuesException): pass
            if data__sm_one_of_count27 != 1:
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".sm must be valid exactly by one definition")
        if "isa" in data_keys:
            data_keys.remove("isa")
            data__isa = data["isa"]
            data__isa_one_of_count28 = 0
            if data__isa_one_of_count28 < 2:
                try:
                    if not isinstance(data__isa, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".isa must be string")
                    data__isa_one_of_count28 += 1
                except (JsonSchemaValueException, JsonSchemaValuesException): pass
            if data__isa_one_of_count28 < 2:
                try:
                    if not isinstance(data__isa, (list, tuple)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".isa must be array")
                    data__isa_is_list = isinstance(data__isa, (list, tuple))
                    if data__isa_is_list:
                        data__isa_len = len(data__isa)
                        if data__isa_len < 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".isa must contain at least 1 items")
                        for data__isa_x, data__isa_item in enumerate(data__isa):
                            if not isinstance(data__isa_item, (str)):
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".isa[{data__isa_x}]".format(**locals()) + " must be string")
                    data__isa_one_of_count28 += 1
                except (JsonSchemaValueException, JsonSchemaValuesException): pass
            if data__isa_one_of_count28 != 1:
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".isa must be valid exactly by one definition")
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties")
    return data

def validate____defs_version(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (str, int, float, Decimal)) or isinstance(data, bool):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be string or number")
    if isinstance(data, str):
        if not REGEX_PATTERNS['^[0-9]+\\.[0-9]+$'].search(data):
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must match pattern ^[0-9]+\\.[0-9]+$")
    return data

def validate____defs_pin(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (dict)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be object")
    data_is_dict = isinstance(data, dict)
    if data_is_dict:
        data__missing_keys = set(['name', 'rev']) - data.keys()
        if data__missing_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must contain ")
        data_keys = set(data.keys())
        if "name" in data_keys:
            data_keys.remove("name")
            data__name = data["name"]
            if not isinstance(data__name, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".name must be string")
            if isinstance(data__name, str):
                if not REGEX_PATTERNS['^[A-Za-z_][A-Za-z0-9_-]*$'].search(data__name):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".name must match pattern ^[A-Za-z_][A-Za-z0-9_-]*$")
        if "rev" in data_keys:
            data_keys.remove("rev")
            data__rev = data["rev"]
            if not isinstance(data__rev, (str)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".rev must be string")
            if isinstance(data__rev, str):
                if not REGEX_PATTERNS['^[0-9a-f]{40}$'].search(data__rev):
                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".rev must match pattern ^[0-9a-f]{40}$")
        if "sha256" in data_keys:
            data_keys.remove("sha256")
            data__sha256 = data["sha256"]
            data__sha256_one_of_count29 = 0
            if data__sha256_one_of_count29 < 2:
                try:
                    if not isinstance(data__sha256, (str)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".sha256 must be string")
                    if isinstance(data__sha256, str):
                        if not REGEX_PATTERNS['^(sha256-[A-Za-z0-9+/]{43}=|[0-9a-z]{52})$'].search(data__sha256):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".sha256 must match pattern ^(sha256-[A-Za-z0-9+/]{43}=|[0-9a-z]{52})$")
                    data__sha256_one_of_count29 += 1
                except (JsonSchemaValueException, JsonSchemaValuesException): pass
            if data__sha256_one_of_count29 < 2:
                try:
                    if not isinstance(data__sha256, (NoneType)):
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".sha256 must be null")
                    data__sha256_one_of_count29 += 1
                except (JsonSchemaValueException, JsonSchemaValuesException): pass
            if data__sha256_one_of_count29 != 1:
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".sha256 must be valid exactly by one definition")
        if "config" in data_keys:
            data_keys.remove("config")
            data__config = data["config"]
            if not isinstance(data__config, (dict)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".config must be object")
            data__config_is_dict = isinstance(data__config, dict)
            if data__config_is_dict:
                data__config_keys = set(data__config.keys())
                for data__config_key in data__config_keys:
                    if data__config_key not in []:
                        data__config_value = data__config.get(data__config_key)
                        data__config_value_one_of_count30 = 0
                        if data__config_value_one_of_count30 < 2:
                            try:
                                if not isinstance(data__config_value, (bool, int, str)) and not (isinstance(data__config_value, float) and data__config_value.is_integer()):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".config.{data__config_key}".format(**locals()) + " must be boolean or integer or string")
                                if isinstance(data__config_value, (int, float, Decimal)) and not isinstance(data__config_value, bool):
                                    if data__config_value < -9223372036854775807:
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".config.{data__config_key}".format(**locals()) + " must be bigger than or equal to -9223372036854775807")
                                    if data__config_value > 9223372036854775807:
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".config.{data__config_key}".format(**locals()) + " must be smaller than or equal to 9223372036854775807")
                                data__config_value_one_of_count30 += 1
                            except (JsonSchemaValueException, JsonSchemaValuesException): pass
                        if data__config_value_one_of_count30 < 2:
                            try:
                                if not isinstance(data__config_value, (list, tuple)):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".config.{data__config_key}".format(**locals()) + " must be array")
                                data__config_value_is_list = isinstance(data__config_value, (list, tuple))
                                if data__config_value_is_list:
                                    data__config_value_len = len(data__config_value)
                                    for data__config_value_x, data__config_value_item in enumerate(data__config_value):
                                        if not isinstance(data__config_value_item, (str)):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".config.{data__config_key}[{data__config_value_x}]".format(**locals()) + " must be string")
                                data__config_value_one_of_count30 += 1
                            except (JsonSchemaValueException, JsonSchemaValuesException): pass
                        if data__config_value_one_of_count30 != 1:
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".config.{data__config_key}".format(**locals()) + " must be valid exactly by one definition")
                data__config_len = len(data__config)
                if data__config_len != 0:
                    data__config_property_names = True
                    for data__config_key in data__config:
                        try:
                            if isinstance(data__config_key, str):
                                if not REGEX_PATTERNS['^[A-Za-z_][A-Za-z0-9_-]*$'].search(data__config_key):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".config must match pattern ^[A-Za-z_][A-Za-z0-9_-]*$")
                        except (JsonSchemaValueException, JsonSchemaValuesException):
                            data__config_property_names = False
                    if not data__config_property_names:
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".config must be named by propertyName definition")
        if "patches" in data_keys:
            data_keys.remove("patches")
            data__patches = data["patches"]
            if not isinstance(data__patches, (dict)):
                raise JsonSchemaValueException("" + (name_prefix or "data") + ".patches must be object")
            data__patches_is_dict = isinstance(data__patches, dict)
            if data__patches_is_dict:
                data__patches_keys = set(data__patches.keys())
                for data__patches_key in data__patches_keys:
                    if data__patches_key not in []:
                        data__patches_value = data__patches.get(data__patches_key)
                        if not isinstance(data__patches_value, (list, tuple)):
                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".patches.{data__patches_key}".format(**locals()) + " must be array")
                        data__patches_value_is_list = isinstance(data__patches_value, (list, tuple))
                        if data__patches_value_is_list:
                            data__patches_value_len = len(data__patches_value)
                            if data__patches_value_len < 1:
                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".patches.{data__patches_key}".format(**locals()) + " must contain at least 1 items")
                            for data__patches_value_x, data__patches_value_item in enumerate(data__patches_value):
                                if not isinstance(data__patches_value_item, (dict)):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".patches.{data__patches_key}[{data__patches_value_x}]".format(**locals()) + " must be object")
                                data__patches_value_item_is_dict = isinstance(data__patches_value_item, dict)
                                if data__patches_value_item_is_dict:
                                    data__patches_value_item__missing_keys = set(['url', 'hash']) - data__patches_value_item.keys()
                                    if data__patches_value_item__missing_keys:
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".patches.{data__patches_key}[{data__patches_value_x}]".format(**locals()) + " must contain ")
                                    data__patches_value_item_keys = set(data__patches_value_item.keys())
                                    if "url" in data__patches_value_item_keys:
                                        data__patches_value_item_keys.remove("url")
                                        data__patches_value_item__url = data__patches_value_item["url"]
                                        if not isinstance(data__patches_value_item__url, (str)):
                                            raise JsonSchemaValueException("" + (name_prefix or "data") + ".patches.{data__patches_key}[{data__patches_value_x}].url".format(**locals()) + " must be string")
                                        if isinstance(data__patches_value_item__url, str):
                                            if not REGEX_PATTERNS['^https?://\\S+$'].search(data__patches_value_item__url):
                                                raise JsonSchemaValueException("" + (name_prefix or "data") + ".patches.{data__patches_key}[{data__patches_value_x}].url".format(**locals()) + " must match pattern ^https?://\\S+$")
                                    if "hash" in data__patches_value_item_keys:
                                        data__patches_value_item_keys.remove("hash")
                                        data__patches_value_item__hash = data__patches_value_item["hash"]
                                        validate____defs_srihash(data__patches_value_item__hash, custom_formats, (name_prefix or "data") + ".patches.{data__patches_key}[{data__patches_value_x}].hash".format(**locals()))
                                    if data__patches_value_item_keys:
                                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".patches.{data__patches_key}[{data__patches_value_x}]".format(**locals()) + " must not contain "+str(data__patches_value_item_keys)+" properties")
                data__patches_len = len(data__patches)
                if data__patches_len != 0:
                    data__patches_property_names = True
                    for data__patches_key in data__patches:
                        try:
                            if isinstance(data__patches_key, str):
                                if not REGEX_PATTERNS['^[A-Za-z_][A-Za-z0-9_-]*$'].search(data__patches_key):
                                    raise JsonSchemaValueException("" + (name_prefix or "data") + ".patches must match pattern ^[A-Za-z_][A-Za-z0-9_-]*$")
                        except (JsonSchemaValueException, JsonSchemaValuesException):
                            data__patches_property_names = False
                    if not data__patches_property_names:
                        raise JsonSchemaValueException("" + (name_prefix or "data") + ".patches must be named by propertyName definition")
        if "when" in data_keys:
            data_keys.remove("when")
            data__when = data["when"]
            validate____defs_anymatch(data__when, custom_formats, (name_prefix or "data") + ".when")
        if data_keys:
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must not contain "+str(data_keys)+" properties")
    return data

def validate____defs_srihash(data, custom_formats={}, name_prefix=None):
    if not isinstance(data, (str)):
        raise JsonSchemaValueException("" + (name_prefix or "data") + " must be string")
    if isinstance(data, str):
        if not REGEX_PATTERNS['^sha256-[A-Za-z0-9+/]{43}=$'].search(data):
            raise JsonSchemaValueException("" + (name_prefix or "data") + " must match pattern ^sha256-[A-Za-z0-9+/]{43}=$")
    return data
