// A query parameter's problem, as the routes turn it into a contract error item:
// its own module, shared by the parameter parser and the attribute filters' parser.
export interface ParamProblem {
  param: string
  msg: string
  type: string
  input: unknown
}
