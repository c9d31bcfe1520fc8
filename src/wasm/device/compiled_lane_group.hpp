// The cpu device's lane group entry (C++ only: a member of the unit's context, after the
// unit's lane group text, compiler/lane_group_codegen.hpp, which defines COMPILED_LANES and
// compiled_unit_group_step). It takes COMPILED_LANES instances that are all at the start of
// the same call, or all running at the same block (a later quantum of a long loop), makes
// each one's entry in the first case, and runs them together through the loop of lane blocks
// they are at; then each instance runs alone for the rest of its quantum (compiled_run),
// exactly as if it had run alone from the start: the group runs a lane's block only when that
// block would run whole in the lane's own run too (its records in the lane's credit), and
// leaves everything else to compiled_run.
// Returns the lanes that ran together (COMPILED_LANES or 0).
uint compiled_run_group(UnitContext* const* lanes, uint quantum, uint budget, uint* statuses) {
  Regs r[COMPILED_LANES];
  CompiledCount c[COMPILED_LANES];
  bool running = quantum != 0u;
  bool at_entry = true;
  bool at_block = true;
  bool grouped = false;
  for (uint k = 0u; k < COMPILED_LANES; k++) {
    UnitContext& lane = *lanes[k];
    r[k] = lane.regs_load(budget);
    c[k] = CompiledCount{0u, 0u, quantum, lane.st_get(S_FUEL_LIMITED) != 0u,
                         uvec2(lane.st_get(S_FUEL), lane.st_get(S_FUEL + 1u))};
    running = running && r[k].status == STATUS_RUNNING;
    // A call begun in every lane (each makes its own entry: lanes calling different
    // functions run alone), or every lane at one block, none inside a call or bulk
    // operation's continuation (r.cont), which only the single path resumes.
    at_entry = at_entry && r[k].pc == prog(H_ENTRY_PC) && r[k].cont_func == r[0].cont_func;
    at_block = at_block && r[k].pc == r[0].pc && r[k].pc != prog(H_ENTRY_PC) && r[k].cont == 0u;
  }
  if (running && (at_entry || at_block)) {
    bool same = true;
    for (uint k = 0u; k < COMPILED_LANES; k++) {
      UnitContext& lane = *lanes[k];
      r[k].ob = lane.frame_operand_base(r[k]);
      // The call's entry, as compiled_run's first turn makes it.
      if (at_entry) compiled_count(c[k], lane.compiled_entry(r[k]));
      same = same && r[k].status == STATUS_RUNNING && r[k].pc == r[0].pc && c[k].iterations < quantum;
    }
    if (same) grouped = compiled_unit_group_step(lanes, r, c);
    for (uint k = 0u; k < COMPILED_LANES; k++) lanes[k]->regs_store(r[k], c[k].records, c[k].fuel);
  }
  for (uint k = 0u; k < COMPILED_LANES; k++) {
    statuses[k] = c[k].iterations < quantum ? lanes[k]->compiled_run(quantum - c[k].iterations, budget) : r[k].status;
  }
  return grouped ? COMPILED_LANES : 0u;
}
