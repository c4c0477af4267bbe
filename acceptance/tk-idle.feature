Feature: IDLE, Python's Tk editor and shell
  Tk publishes no accessibility tree: everything here is found in the pixels.

  Background:
    Given I launch 'idle-python3.11'

  Scenario: The shell computes
    When I type 'print(6 * 7)'
    And I press 'Enter'
    Then I should see '42'

  Scenario: The shell says what went wrong
    When I type 'undefined_name'
    And I press 'Enter'
    Then I should see 'NameError'

  Scenario: The File menu
    When I click 'File'
    Then I should see 'New File'
    And I should see 'Open...'

  Scenario: A new editor window
    When I press 'ctrl+n'
    Then I should see 'untitled'

  @sample
  Scenario: The shell remembers a variable
    When I type 'x = 21'
    And I press 'Enter'
    And I type 'x * 2'
    And I press 'Enter'
    Then I should see '42'
