/* SPDX-License-Identifier: MIT
 * The plugin table (tf_api) as one list: the field and the function that fills it, in the
 * header's order. g_api is built from it by name (designated initializers, so a wrong signature
 * does not compile), and test_abi checks every entry and that the list covers the whole struct.
 * A new entry point: append it to tf_api in tauform.h and here. */
#ifndef TF_API_TABLE_H
#define TF_API_TABLE_H

#define TF_API_TABLE(X)                                      \
  X(version_fn, tf_version)                                  \
  X(status_name, tf_status_name)                             \
  X(cloth_def_init_, tf_cloth_def_init_)                     \
  X(cloth_create, tf_cloth_create)                           \
  X(sim_destroy, tf_sim_destroy)                             \
  X(sim_last_error, tf_sim_last_error)                       \
  X(sim_set_param, tf_sim_set_param)                         \
  X(sim_get_param, tf_sim_get_param)                         \
  X(sim_set_param_map, tf_sim_set_param_map)                 \
  X(sim_set_pins, tf_sim_set_pins)                           \
  X(sim_set_pin_targets, tf_sim_set_pin_targets)             \
  X(sim_advance, tf_sim_advance)                             \
  X(sim_set_state, tf_sim_set_state)                         \
  X(sim_vert_count, tf_sim_vert_count)                       \
  X(sim_get_positions, tf_sim_get_positions)                 \
  X(sim_get_positions_f, tf_sim_get_positions_f)             \
  X(sim_get_velocities, tf_sim_get_velocities)               \
  X(sim_get_normals, tf_sim_get_normals)                     \
  X(sim_get_forces, tf_sim_get_forces)                       \
  X(sim_get_energy, tf_sim_get_energy)                       \
  X(sim_get_stats, tf_sim_get_stats)                         \
  X(critical_damping, tf_critical_damping)                   \
  X(status_message, tf_status_message)                       \
  X(version_string, tf_version_string)                       \
  X(sim_get_pin_targets, tf_sim_get_pin_targets)             \
  X(rig_def_init_, tf_rig_def_init_)                         \
  X(rig_load, tf_rig_load)                                   \
  X(rig_destroy, tf_rig_destroy)                             \
  X(rig_sim, tf_rig_sim)                                     \
  X(rig_apply, tf_rig_apply)                                 \
  X(rig_timing, tf_rig_timing)                               \
  X(rig_last_error, tf_rig_last_error)                       \
  X(render_def_init_, tf_render_def_init_)                   \
  X(sim_render_png, tf_sim_render_png)                       \
  X(sim_render_sheet_png, tf_sim_render_sheet_png)           \
  X(sim_settle_tau, tf_sim_settle_tau)                       \
  X(measure_settle, tf_measure_settle)                       \
  X(param_check, tf_param_check)                             \
  X(flesh_def_init_, tf_flesh_def_init_)                     \
  X(flesh_create, tf_flesh_create)                           \
  X(tetmesh_load, tf_tetmesh_load)                           \
  X(tetmesh_get, tf_tetmesh_get)                             \
  X(tetmesh_region_name, tf_tetmesh_region_name)             \
  X(tetmesh_destroy, tf_tetmesh_destroy)                     \
  X(sim_get_rest_positions, tf_sim_get_rest_positions)       \
  X(sim_surface_vert_count, tf_sim_surface_vert_count)       \
  X(sim_get_surface_positions, tf_sim_get_surface_positions) \
  X(sim_flesh_info, tf_sim_flesh_info)                       \
  X(sim_check_param, tf_sim_check_param)                     \
  X(sim_tri_count, tf_sim_tri_count)                         \
  X(sim_get_triangles, tf_sim_get_triangles)                 \
  X(param_get_info, tf_param_get_info)                       \
  X(collider_def_init_, tf_collider_def_init_)               \
  X(sim_add_collider, tf_sim_add_collider)                   \
  X(sim_move_collider, tf_sim_move_collider)                 \
  X(sim_transform_collider, tf_sim_transform_collider)       \
  X(sim_set_collider, tf_sim_set_collider)                   \
  X(sim_collider_count, tf_sim_collider_count)               \
  X(sim_self_intersections, tf_sim_self_intersections)       \
  X(sim_state_size, tf_sim_state_size)                       \
  X(sim_save_state, tf_sim_save_state)                       \
  X(sim_load_state, tf_sim_load_state)                       \
  X(sim_get_topology, tf_sim_get_topology)                   \
  X(sim_get_vertex_origins, tf_sim_get_vertex_origins)       \
  X(sim_get_vertex_parents, tf_sim_get_vertex_parents)       \
  X(sim_response_levels, tf_sim_response_levels)             \
  X(sim_set_response, tf_sim_set_response)                   \
  X(sim_get_response, tf_sim_get_response)                   \
  X(sim_set_forces, tf_sim_set_forces)                       \
  X(sim_get_masses, tf_sim_get_masses)

#endif
