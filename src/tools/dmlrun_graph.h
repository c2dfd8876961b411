/*
 * dmlrun_graph.h — `dmlrun graph ...` (dmlrun_graph.c).
 */
#ifndef DML_TOOLS_DMLRUN_GRAPH_H
#define DML_TOOLS_DMLRUN_GRAPH_H

#include "common.h"

/* Runs `dmlrun graph` with the arguments after "graph"; returns the exit status. */
int dmlrun_graph(int argc, char** argv);

#endif /* DML_TOOLS_DMLRUN_GRAPH_H */
